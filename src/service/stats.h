/* The periodic stats line: frame rate, frame-time percentiles, touches, missed flips. */
#ifndef STATS_H
#define STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stats;

struct stats *stats_create(void);
void stats_destroy(struct stats *s);
/* A frame rendered, taking ns of CPU-side work. */
void stats_frame(struct stats *s, uint64_t ns);
/* A frame not shown in time: the previous flip had not completed. */
void stats_missed_flip(struct stats *s);
/* The screens were switched off (asleep) or on again at now_ns. */
void stats_sleep(struct stats *s, uint64_t now_ns, bool asleep);
/* Frames rendered and flips missed since stats_create(): never reset (the
 * hourly usage numbers and the STATUS= line take differences). */
void stats_totals(const struct stats *s, uint64_t *frames, uint64_t *missed);
/* One line ("60.0 fps, frame 2.1 ms p50 / 3.9 ms p99, 4 touches, 0 missed
 * flips") over the time since the last call, then start counting anew.
 * When the screens slept meanwhile it says for how long and when they
 * went off and came on (", asleep 312 s (off 14:02:03, on 14:07:15)"). */
void stats_line(struct stats *s, uint64_t now_ns, uint64_t touches, char *buf, size_t len);

#endif
