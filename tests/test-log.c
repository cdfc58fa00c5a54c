/*
 * The log: what a line names is shown as given, but bytes that would act on
 * a terminal or are not text (a config file's escape sequences, binary
 * bytes) are written as \xNN; UTF-8 stays as it is.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "capture.h"
#include "check.h"
#include "settings/config-file.h"
#include "settings/options.h"

/* Nothing but printable ASCII and line ends (what the config tests give
 * once escaped). */
static bool inert(const char *s)
{
	for (; *s; s++)
		if ((*s < ' ' && *s != '\n') || *s > '~')
			return false;
	return true;
}

static void test_escaped(void)
{
	static const struct {
		const char *given, *shown;
	} cases[] = {
		{ "plain 'text', 100 %", "plain 'text', 100 %" },
		{ "\x1b[2J\x1b]0;owned\x07", "\\x1b[2J\\x1b]0;owned\\x07" },
		{ "tab\there\r\nnext", "tab\\x09here\\x0d\\x0anext" },
		{ "del\x7f", "del\\x7f" },
		/* A backslash is escaped too, so what reads as an escape is one. */
		{ "a\\x1b.png", "a\\x5cx1b.png" },
		/* UTF-8 stays; C1 controls (CSI), bytes that are not UTF-8, an
		 * overlong '/', a surrogate, a sequence cut short do not. */
		{ "\xc3\x89t\xc3\xa9.jpg \xe2\x82\xac \xf0\x9f\x8c\x8a",
		  "\xc3\x89t\xc3\xa9.jpg \xe2\x82\xac \xf0\x9f\x8c\x8a" },
		{ "\xc2\x9b" "31m", "\\xc2\\x9b" "31m" },
		{ "\xff\xfe", "\\xff\\xfe" },
		{ "\xc0\xaf", "\\xc0\\xaf" },
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80" },
		{ "cut \xe2\x82", "cut \\xe2\\x82" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char want[256];
		struct capture c;

		capture_begin(&c, STDERR_FILENO);
		log_warn("%s", cases[i].given);
		capture_end(&c);
		snprintf(want, sizeof(want), "%swarning: %s\n", LOG_PREFIX, cases[i].shown);
		CHECK(strcmp(captured, want) == 0);
		if (strcmp(captured, want) != 0)
			fprintf(stderr, "  case %zu said: %s", i, captured);
	}
}

/* A config file with an escape sequence and binary bytes in a key and in
 * a value: refused in one line each, the bytes shown, not sent. */
static void test_config_bytes(void)
{
	static const char *const texts[] = {
		"\x1b[31mdamping = 0.99\n",
		"damping = \x1b]2;title\x07\x01\x02\xfe\n",
		"\x9b" "2J\n",
	};
	static const char *const shown[] = {
		"unknown key '\\x1b[31mdamping'",
		"\\x1b]2;title\\x07\\x01\\x02\\xfe",
		"'\\x9b2J' is not a 'key = value' line",
	};

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		struct options o;
		struct capture c;

		options_defaults(&o);
		capture_begin(&c, STDERR_FILENO);
		CHECK(config_parse_buffer(texts[i], strlen(texts[i]), "kiosk.conf", &o) < 0);
		capture_end(&c);
		CHECK_EQ(count_lines(captured), 1);
		CHECK(inert(captured));
		CHECK(strstr(captured, shown[i]) != NULL);
		if (!strstr(captured, shown[i]))
			fprintf(stderr, "  said: %s", captured);
		options_free(&o);
	}
}

int main(void)
{
	/* Lines as a terminal shows them, whatever runs the test. */
	unsetenv("JOURNAL_STREAM");
	RUN(test_escaped);
	RUN(test_config_bytes);
	return CHECK_EXIT();
}
