/* The periodic stats line: frame rate, frame-time percentiles, touches, missed flips. */
#ifndef STATS_H
#define STATS_H

#include <stddef.h>
#include <stdint.h>

struct stats;

struct stats *stats_create(void);
void stats_destroy(struct stats *s);
/* A frame rendered, taking ns of CPU-side work. */
void stats_frame(struct stats *s, uint64_t ns);
/* A frame not shown in time: the previous flip had not completed. */
void stats_missed_flip(struct stats *s);
/* Frames rendered and flips missed since stats_create(): never reset (the
 * hourly usage numbers and the STATUS= line take differences). */
void stats_totals(const struct stats *s, uint64_t *frames, uint64_t *missed);
/* One line ("60.0 fps, frame 2.1 ms p50 / 3.9 ms p99, 4 touches, 0 missed
 * flips") over the time since the last call, then start counting anew. */
void stats_line(struct stats *s, uint64_t now_ns, uint64_t touches, char *buf, size_t len);

#endif
