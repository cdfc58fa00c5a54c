/*
 * The option table as the pages and the sample config show it
 * (src/settings/options-doc.c), for tests/man.sh and tests/headless.sh:
 *   options-doc man1-options|man5-keys|man5-reload|conf|names
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settings/options-private.h"

int main(int argc, char **argv)
{
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s man1-options|man5-keys|man5-reload|conf|names\n",
			argv[0]);
		return EXIT_FAILURE;
	}
	ret = options_write_doc(stdout, argv[1]);
	if (ret < 0) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], argv[1], strerror(-ret));
		return EXIT_FAILURE;
	}
	return fflush(stdout) == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
