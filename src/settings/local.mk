# settings: every option -- the table (each option's type, default, range,
# reload class and texts), the command line and the keys read from it, each
# type's parser, --help and the pages' option sections printed from it, the
# config file, and the two read together.
# Uses base, water (the look's units), image (the fit) and input (the
# calibration matrix) for their names and ranges; links nothing else.
noinst_LIBRARIES += src/settings/librk-settings.a
src_settings_librk_settings_a_SOURCES = \
	src/settings/options.c src/settings/options-table.c src/settings/options.h \
	src/settings/options-private.h \
	src/settings/options-parse.c \
	src/settings/options-values.c \
	src/settings/options-help.c \
	src/settings/options-doc.c \
	src/settings/config-file.c src/settings/config-file.h \
	src/settings/check.c \
	src/settings/settings.c src/settings/settings.h \
	src/settings/fit.c src/settings/fit.h
SETTINGS_LIBS = src/settings/librk-settings.a
