/* A display without a screen: frames are written as PNG files. */
#ifndef DISPLAY_HEADLESS_H
#define DISPLAY_HEADLESS_H

#include "display/display.h"
#include "service/options.h"

/* One output of o->width x o->height in o->format, frames to o->output_dir
 * (created if missing) every o->every frames. 0 or negative errno (logged). */
int display_headless_create(const struct options *o, struct display **out);

#endif
