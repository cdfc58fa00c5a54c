/* What the option table (options-table.c) gives the rest: the defaults,
 * the strings' ownership, and each layer's config from the options. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/homography.h"
#include "base/log.h"
#include "base/util.h"
#include "camera/camera.h"
#include "input/input.h"
#include "tuio/tuio.h"
#include "settings/options-private.h"
#include "settings/options.h"
#include "water/units.h"

const struct option_row *options_row_find(const char *name)
{
	for (size_t i = 0; i < options_table_len; i++)
		if (strcmp(options_table[i].name, name) == 0)
			return &options_table[i];
	return NULL;
}

/* A string default is the table's own text: never copied, never freed. */
static bool is_string_default(const char *s)
{
	for (size_t i = 0; i < options_table_len; i++)
		if (options_table[i].type == OPTION_STRING && s == options_table[i].def)
			return true;
	return false;
}

void options_defaults(struct options *o)
{
	memset(o, 0, sizeof(*o));
	for (size_t i = 0; i < options_table_len; i++) {
		const struct option_row *row = &options_table[i];

		if (!row->def)
			continue;
		if (row->type == OPTION_STRING)
			*(const char **)(void *)((char *)o + row->offset) = row->def;
		else
			/* The table's own text: tests/test-config checks each parses. */
			(void)options_parse_one(o, row, row->def, NULL);
	}
}

void options_free_string(const char **s)
{
	if (!is_string_default(*s))
		free((char *)*s);
	*s = NULL;
}

int options_copy_string(const char **dst, const char *src)
{
	*dst = NULL;
	if (!src || is_string_default(src)) {
		*dst = src;
		return 0;
	}
	*dst = strdup(src);
	return *dst ? 0 : -ENOMEM;
}

void options_input_config(const struct options *o, struct input_config *c)
{
	struct input_stones *s = &c->stones;

	memset(c, 0, sizeof(*c));
	c->touch_device = o->touch_device;
	c->grab = o->grab;
	/* The panel's orientation is known once a screen is: the loop
	 * gives the touches the water's rotation (input_set_target). */
	c->transform.rotation = options_rotation(o, -1);
	c->transform.invert_x = o->touch_invert_x;
	c->transform.invert_y = o->touch_invert_y;
	c->transform.has_matrix = o->has_calibration;
	memcpy(c->transform.matrix, o->calibration, sizeof(c->transform.matrix));
	c->transform.has_corners = false;
	if (o->touch_corners) {
		double corners[2 * HOMOGRAPHY_CORNERS];

		/* Refused with a line when read: a bad one is none here. */
		c->transform.has_corners =
			homography_parse_corners(o->touch_corners, corners) == 0 &&
			homography_from_corners(corners, &c->transform.corners) == 0;
	}
	s->radius_min_mm = o->touch_radius_min > 0 ? o->touch_radius_min : o->stone_radius_mm;
	s->radius_max_mm = o->touch_radius_max > 0 ? o->touch_radius_max
			   : o->stone_radius_mm * OPTIONS_TOUCH_RADIUS_SPREAD;
	s->weight_min_mm = o->touch_weight_min > 0 ? o->touch_weight_min
			   : o->stone_weight_mm / OPTIONS_TOUCH_WEIGHT_SPREAD;
	s->weight_max_mm = o->touch_weight_max > 0 ? o->touch_weight_max
			   : o->stone_weight_mm * OPTIONS_TOUCH_WEIGHT_SPREAD;
}

void options_tuio_config(const struct options *o, struct tuio_config *c)
{
	struct input_config ic;

	options_input_config(o, &ic);
	memset(c, 0, sizeof(*c));
	c->listen = o->tuio;
	c->from = o->tuio_from;
	c->timeout_ns = (uint64_t)(o->tuio_timeout_s * 1e9);
	c->has_corners = o->tuio_corners &&
			 homography_parse_corners(o->tuio_corners, c->corners) == 0;
	c->stones = ic.stones;
}

void options_camera_config(const struct options *o, bool batch, struct camera_config *c)
{
	struct input_config ic;
	char err[ERR_LEN];

	options_input_config(o, &ic);
	memset(c, 0, sizeof(*c));
	c->device = o->camera;
	/* Each checked as the options were read: a bad one is not here. */
	if (o->camera_mode)
		(void)camera_parse_mode(o->camera_mode, &c->mode, err, sizeof(err));
	if (!o->camera_scale ||
	    camera_parse_scale(o->camera_scale, &c->scale_w, &c->scale_h, err, sizeof(err)) < 0) {
		c->scale_w = VISION_MAX_W;
		c->scale_h = VISION_MAX_H;
	}
	c->absorb_s = o->camera_absorb_s;
	c->min_size_mm = o->camera_min_size_mm;
	c->mains_hz = o->camera_mains_hz;
	c->masks_dir = o->camera_masks;
	c->record_dir = o->camera_record;
	if (o->camera_corners &&
	    camera_parse_points(o->camera_corners, &c->n_points, c->camera_xy, c->surface_uv, err,
				sizeof(err)) < 0)
		c->n_points = 0;
	c->batch = batch;
	c->stones = ic.stones;
}

int options_rotation(const struct options *o, int panel_rotation)
{
	if (o->rotate != ROTATE_AUTO)
		return (int)o->rotate;
	return panel_rotation >= 0 ? panel_rotation : 0;
}

void options_water_look(const struct options *o, struct water_look *look)
{
	*look = (struct water_look){
		/* A wall's size is its layout's. */
		.screen_mm_width = o->layout ? 0 : o->screen_mm_width,
		.screen_mm_height = o->layout ? 0 : o->screen_mm_height,
		.model = o->water,
		.wave_speed_cm_s = o->wave_speed_cm_s,
		.viscosity_m2_s = o->viscosity_mm2_s * OPTIONS_M2_PER_MM2,
		.fade_s = o->fade_s,
		.depth_mm = o->depth_mm > 0 ? o->depth_mm
			    : o->water == WATER_POND ? OPTIONS_DEFAULT_POND_DEPTH_MM
						     : OPTIONS_DEFAULT_DEPTH_MM,
		.stone_weight_mm = o->stone_weight_mm,
		.sim_scale = o->sim_scale,
		.steps_per_second = o->steps_per_second,
		.damping_shift = o->damping,
		.refraction_shift = o->shift,
		.light_percent = o->light,
		.light_azimuth_deg = o->light_azimuth,
		.light_elevation_deg = o->light_elevation,
		.light_size_deg = o->light_size_deg,
		.caustics = o->caustics,
	};
}

void options_say_unused(const struct options *o)
{
	if (o->water == WATER_POND) {
		if (o->wave_speed_cm_s != OPTIONS_DEFAULT_WAVE_SPEED_CM_S)
			log_warn("wave-speed %g: only the classic water (--water classic) has one "
				 "speed; the pond's waves each run at water's own speed for their "
				 "length and depth", o->wave_speed_cm_s);
		if (o->damping != 0)
			log_warn("damping %d: only the classic water (--water classic) damps by a "
				 "shift; the pond fades by --fade and --viscosity", o->damping);
	} else if (o->viscosity_mm2_s != OPTIONS_DEFAULT_VISCOSITY_MM2_S) {
		log_warn("viscosity %g: only the pond (--water pond) has water's viscosity; the "
			 "classic water damps by --fade and its grid", o->viscosity_mm2_s);
	}
}
