/*
 * Where fingers landed, for the curator: counts on a coarse grid laid over
 * the water's screen (its logical pixels, as touches are given), kept in
 * the state directory as touches-grid.csv across restarts, and drawn as
 * touches.png over a dimmed copy of the picture. Places and counts only.
 */
#ifndef SERVICE_HEATMAP_H
#define SERVICE_HEATMAP_H

#include <stdint.h>

struct heatmap;
struct image;

/* The grid: fine enough to tell the corners and the middle of a picture
 * apart, coarse enough to say nothing about a hand. */
/* touches.png, in the state directory */
#define HEATMAP_FILE "touches.png"
#define HEATMAP_COLS 96
#define HEATMAP_ROWS 54

/* Reads dir/touches-grid.csv when there is one (dir copied; NULL: keeps
 * nothing). A file that is not a grid is said and started over. NULL on
 * no memory. */
struct heatmap *heatmap_create(const char *dir);
void heatmap_destroy(struct heatmap *h);
/* The same counts and directory, to write from another thread. NULL on no
 * memory. */
struct heatmap *heatmap_copy(const struct heatmap *h);
/* A finger landed at x, y of a screen_w x screen_h screen. */
void heatmap_add(struct heatmap *h, int x, int y, int screen_w, int screen_h);
uint32_t heatmap_count(const struct heatmap *h, int col, int row);

/* touches-grid.csv, whole or not at all, never through a symlink. 0 or
 * a negative errno (said). */
int heatmap_save(const struct heatmap *h);
/* The map drawn over a dimmed picture of the same size, into pixels
 * (XRGB8888, stride bytes a row). */
void heatmap_draw(const struct heatmap *h, const struct image *picture, uint32_t *pixels,
		  size_t stride);
/* touches.png the picture's size, as heatmap_draw() makes it, whole or
 * not at all. 0 or a negative errno (said). */
int heatmap_write_png(const struct heatmap *h, const struct image *picture);

#endif
