# wall: panels side by side under one pond -- the layout in mm and its
# plan in the wall's pixels. Pure arithmetic; uses base.
noinst_LIBRARIES += src/wall/librk-wall.a
src_wall_librk_wall_a_SOURCES = src/wall/layout.c src/wall/layout.h
WALL_LIBS = src/wall/librk-wall.a
