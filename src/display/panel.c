#include "config.h"

#include <stddef.h>
#include <string.h>

#include "base/util.h"
#include "display/display.h"

/*
 * "Left Side Up": the panel's left edge (its scanout's x = 0) is at the
 * top of the case, so the scanout shows turned a quarter clockwise; the
 * picture turns a quarter back, 270 clockwise. As mutter, wlroots and
 * plymouth read the property.
 */
static const struct {
	enum display_panel panel;
	const char *name;
	int rotation;
} panels[] = {
	{ DISPLAY_PANEL_UNKNOWN, "none", -1 },
	{ DISPLAY_PANEL_NORMAL, "Normal", 0 },
	{ DISPLAY_PANEL_UPSIDE_DOWN, "Upside Down", 180 },
	{ DISPLAY_PANEL_LEFT_UP, "Left Side Up", 270 },
	{ DISPLAY_PANEL_RIGHT_UP, "Right Side Up", 90 },
};

enum display_panel display_panel_from_name(const char *name)
{
	for (size_t i = 1; name && i < ARRAY_SIZE(panels); i++)
		if (strcmp(panels[i].name, name) == 0)
			return panels[i].panel;
	return DISPLAY_PANEL_UNKNOWN;
}

const char *display_panel_name(enum display_panel p)
{
	for (size_t i = 0; i < ARRAY_SIZE(panels); i++)
		if (panels[i].panel == p)
			return panels[i].name;
	return panels[0].name;
}

int display_panel_rotation(enum display_panel p)
{
	for (size_t i = 0; i < ARRAY_SIZE(panels); i++)
		if (panels[i].panel == p)
			return panels[i].rotation;
	return -1;
}
