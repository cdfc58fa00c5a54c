/* The tests' stand-in display: see fake-display.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fake-display.h"

static struct fake_display *to_fake(struct display *d)
{
	return (struct fake_display *)d;
}

static bool fake_has(struct display *d, int idx)
{
	return idx >= 0 && idx < to_fake(d)->n_outputs && idx < FAKE_DISPLAY_OUTPUTS;
}

/* Nothing of its own to free, no fd, no events, no power to switch. */
static void fake_destroy(struct display *d)
{
	(void)d;
}

static int fake_get_fd(struct display *d)
{
	(void)d;
	return -1;
}

static int fake_dispatch(struct display *d)
{
	(void)d;
	return 0;
}

static int fake_set_power(struct display *d, bool on)
{
	(void)d;
	(void)on;
	return 0;
}

static int fake_output_count(struct display *d)
{
	return to_fake(d)->n_outputs;
}

static int fake_output_info(struct display *d, int idx, struct display_output_info *info)
{
	struct fake_display *f = to_fake(d);

	if (!fake_has(d, idx))
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "HDMI-A-%d", idx + 1);
	info->width = f->width ? f->width : FAKE_DISPLAY_WIDTH;
	info->height = f->width ? f->height : FAKE_DISPLAY_HEIGHT;
	info->refresh_mhz = FAKE_DISPLAY_REFRESH_MHZ;
	info->format = PIXEL_XRGB8888;
	info->presented = f->presented[idx];
	info->flip_ns = f->flip_ns[idx];
	info->flip_seq = f->flip_seq[idx];
	info->flip_stamped = f->flip == FAKE_FLIP_AT_VBLANK;
	return 0;
}

static int fake_acquire(struct display *d, int idx, struct render_target *t)
{
	struct fake_display *f = to_fake(d);

	if (!fake_has(d, idx))
		return -ENOENT;
	if ((f->staged | f->pending) & (1u << idx))
		return -EBUSY;
	*t = (struct render_target){
		.pixels = f->pixels[idx],
		.width = FAKE_DISPLAY_WIDTH,
		.height = FAKE_DISPLAY_HEIGHT,
		.stride = FAKE_DISPLAY_WIDTH * sizeof(uint32_t),
		.format = PIXEL_XRGB8888,
	};
	if (f->width) {
		t->pixels = f->frame[idx];
		t->width = f->width;
		t->height = f->height;
		t->stride = (size_t)f->width * sizeof(uint32_t);
	}
	return 0;
}

static int fake_present(struct display *d, int idx, uint64_t frame)
{
	struct fake_display *f = to_fake(d);

	(void)frame;
	if (!fake_has(d, idx))
		return -ENOENT;
	if (f->flip == FAKE_FLIP_AT_PRESENT)
		f->presented[idx]++;
	else
		f->staged |= 1u << idx;
	return 0;
}

/* One commit of what was staged: shown at once, or at the vblank after
 * the test's now. */
static int fake_flush(struct display *d)
{
	struct fake_display *f = to_fake(d);
	unsigned all = (1u << f->n_outputs) - 1;

	if (!f->staged)
		return 0;
	f->flushes++;
	if (f->n_outputs > 1 && f->staged == all) {
		f->flushes_all++;
	} else if (f->n_outputs > 1) {
		f->flushes_split++;
		fprintf(stderr, "split %u at flush %d\n", f->staged, f->flushes);
	}
	if (f->flip == FAKE_FLIP_AT_VBLANK) {
		f->pending |= f->staged;
		f->pending_vblank = (*f->now - f->phase_ns) / f->period_ns * f->period_ns +
				    f->period_ns + f->phase_ns;
		if (f->late_every && f->flushes % f->late_every == 0) {
			f->pending_vblank += f->period_ns;
			f->late++;
		}
	} else {
		for (int i = 0; i < FAKE_DISPLAY_OUTPUTS; i++)
			if (f->staged & (1u << i))
				f->presented[i]++;
	}
	f->staged = 0;
	return 0;
}

bool fake_display_vblank(struct fake_display *f, uint64_t now)
{
	if (!f->pending || now < f->pending_vblank)
		return false;
	for (int i = 0; i < FAKE_DISPLAY_OUTPUTS; i++) {
		if (!(f->pending & (1u << i)))
			continue;
		f->presented[i]++;
		f->flip_ns[i] = f->pending_vblank;
		f->flip_seq[i] = (f->pending_vblank - f->phase_ns) / f->period_ns;
	}
	f->pending = 0;
	return true;
}

static const struct display_ops fake_present_ops = {
	.destroy = fake_destroy,
	.get_fd = fake_get_fd,
	.dispatch = fake_dispatch,
	.output_count = fake_output_count,
	.output_info = fake_output_info,
	.acquire = fake_acquire,
	.present = fake_present,
	.set_power = fake_set_power,
};

static const struct display_ops fake_flush_ops = {
	.destroy = fake_destroy,
	.get_fd = fake_get_fd,
	.dispatch = fake_dispatch,
	.output_count = fake_output_count,
	.output_info = fake_output_info,
	.acquire = fake_acquire,
	.present = fake_present,
	.flush = fake_flush,
	.set_power = fake_set_power,
};

void fake_display_init(struct fake_display *f, enum fake_flip flip, int n_outputs)
{
	memset(f, 0, sizeof(*f));
	f->base.ops = flip == FAKE_FLIP_AT_PRESENT ? &fake_present_ops : &fake_flush_ops;
	f->base.backend_name = "fake";
	f->flip = flip;
	f->n_outputs = n_outputs;
}
