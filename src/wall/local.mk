# wall: panels side by side under one pond -- the layout in mm and its
# plan in the wall's pixels; projectors' soft edges (blend) and the
# installer's test pattern (pattern). Pure
# arithmetic; uses base and water's warp weights.
noinst_LIBRARIES += src/wall/librk-wall.a
src_wall_librk_wall_a_SOURCES = src/wall/layout.c src/wall/layout.h \
	src/wall/blend.c src/wall/blend.h \
	src/wall/pattern.c src/wall/pattern.h
WALL_LIBS = src/wall/librk-wall.a
