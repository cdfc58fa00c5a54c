/* A small text file written for a test; a test that cannot write one stops. */
#ifndef TEXT_FILE_H
#define TEXT_FILE_H

#include <stdio.h>
#include <stdlib.h>

static inline void write_text_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(EXIT_FAILURE);
	}
	fputs(text, f);
	fclose(f);
}

#endif
