/*
 * libFuzzer target: the config file parser (ripple-kiosk.conf(5)) on top
 * of the defaults, as at start and on reload.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "settings/config-file.h"
#include "settings/options.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct options o;

	options_defaults(&o);
	/* Accepted or not, o holds only what options_free releases. */
	config_parse_buffer((const char *)data, size, "fuzz.conf", &o);
	options_free(&o);
	return 0;
}
