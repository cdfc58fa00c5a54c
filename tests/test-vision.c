/*
 * The vision on synthetic frames made to look like an IR camera over a
 * floor: a textured floor, vignetting (the corners 40 % darker), Gaussian
 * sensor noise; a foot an ellipse of 26 x 12 pixels (260 x 120 mm), brighter
 * or darker than the floor with a texture of its own, soft edged, with a
 * soft shadow beside it. Every frame's time is its number over the rate:
 * the results are the same on any machine, however loaded.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/homography.h"
#include "vision/vision.h"
#include "check.h"

#define W 320
#define H 240
#define SURFACE_W_MM 3200.0
#define SURFACE_H_MM 2400.0
#define NOISE_SIGMA 2.5
#define FLOOR_LEVEL 95.0
#define FLOOR_TEXTURE 18.0
#define VIGNETTE 0.4
#define FOOT_A 13.0   /* semi-axes, pixels */
#define FOOT_B 6.0
#define BRIGHT_FOOT 170.0
#define DARK_FOOT 35.0
#define FOOT_TEXTURE 12.0
#define SHADOW_RATIO 0.65
#define SHADOW_DX 15.0
#define SHADOW_DY 8.0
#define PATCH_LEVEL 7.5
#define PATCH_SIDE 40
#define GAUSS_N 65536
#define NS_PER_S 1000000000ull
#define MAX_FEET 2
/* The first model takes a second; the tests give it one and a half. */
#define LEARN_S 1.5

struct foot {
	bool on, dark, shadow;
	double x, y;
	double shadow_dx;   /* the shadow's offset beyond SHADOW_DX */
	double a, b;        /* its semi-axes, pixels: FOOT_A and FOOT_B when 0 */
	double hole_a, hole_b;   /* the floor seen through it, in its middle */
};

struct scene {
	float base[W * H];
	float foot_tex[64 * 64];
	float gauss[GAUSS_N];
	uint32_t rng;
	double gain;
	struct foot feet[MAX_FEET];
	double ripple_amp, ripple_phase;
	bool flood;
	/* a cheap sensor's noise: NOISE_SIGMA in the middle, up to
	 * 1 + NOISY_EDGES times it in the corners */
	double noisy_edges;
	/* a faint stain PATCH_LEVEL brighter, PATCH_SIDE square at patch_x, patch_y */
	bool patch;
	int patch_x, patch_y;
};

struct run {
	struct scene *s;
	struct vision *v;
	double fps;
	uint64_t frame;
	uint8_t img[W * H];
};

static uint32_t next_rand(uint32_t *r)
{
	/* xorshift32 */
	*r ^= *r << 13;
	*r ^= *r >> 17;
	*r ^= *r << 5;
	return *r;
}

static double uniform(uint32_t *r)
{
	return (next_rand(r) >> 8) / (double)(1u << 24);
}

/* Value noise: a random grid of cell pixels, bilinear between. */
static void value_noise(float *out, int w, int h, int cell, double amp, uint32_t *r)
{
	int gw = w / cell + 2, gh = h / cell + 2;
	double *g = malloc(sizeof(*g) * (size_t)(gw * gh));

	for (int i = 0; i < gw * gh; i++)
		g[i] = (uniform(r) * 2 - 1) * amp;
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			double fx = (double)x / cell, fy = (double)y / cell;
			int ix = (int)fx, iy = (int)fy;
			double ax = fx - ix, ay = fy - iy;
			double a = g[iy * gw + ix] * (1 - ax) + g[iy * gw + ix + 1] * ax;
			double b = g[(iy + 1) * gw + ix] * (1 - ax) + g[(iy + 1) * gw + ix + 1] * ax;

			out[y * w + x] += (float)(a * (1 - ay) + b * ay);
		}
	}
	free(g);
}

static void scene_init(struct scene *s, uint32_t seed)
{
	memset(s, 0, sizeof(*s));
	s->rng = seed;
	s->gain = 1;
	for (int i = 0; i < GAUSS_N; i += 2) {
		double u1 = (uniform(&s->rng) + 1e-9), u2 = uniform(&s->rng);
		double m = sqrt(-2 * log(u1));

		s->gauss[i] = (float)(m * cos(2 * M_PI * u2));
		s->gauss[i + 1] = (float)(m * sin(2 * M_PI * u2));
	}
	value_noise(s->base, W, H, 9, FLOOR_TEXTURE * 0.7, &s->rng);
	value_noise(s->base, W, H, 3, FLOOR_TEXTURE * 0.3, &s->rng);
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			double dx = (x - W / 2.0) / (W / 2.0), dy = (y - H / 2.0) / (H / 2.0);
			double vig = 1 - VIGNETTE * (dx * dx + dy * dy) / 2;

			s->base[y * W + x] = (float)((FLOOR_LEVEL + s->base[y * W + x]) * vig);
		}
	}
	value_noise(s->foot_tex, 64, 64, 3, FOOT_TEXTURE, &s->rng);
}

static double vignette(int x, int y)
{
	double dx = (x - W / 2.0) / (W / 2.0), dy = (y - H / 2.0) / (H / 2.0);

	return 1 - VIGNETTE * (dx * dx + dy * dy) / 2;
}

/* How much of the pixel an ellipse at (cx, cy) covers, with edges soft
 * over about soft pixels. */
static double cover(double x, double y, double cx, double cy, double a, double b, double soft)
{
	double r = sqrt((x - cx) * (x - cx) / (a * a) + (y - cy) * (y - cy) / (b * b));
	double c = (1 - r) * b / soft + 0.5;

	return c < 0 ? 0 : c > 1 ? 1 : c;
}

static void render(struct scene *s, uint8_t *out)
{
	static float px[W * H];

	if (s->flood) {
		for (int i = 0; i < W * H; i++)
			out[i] = (uint8_t)next_rand(&s->rng);
		return;
	}
	for (int i = 0; i < W * H; i++)
		px[i] = s->base[i];
	for (int f = 0; f < MAX_FEET; f++) {
		const struct foot *ft = &s->feet[f];
		double sx = ft->x + SHADOW_DX + ft->shadow_dx, sy = ft->y + SHADOW_DY;

		if (!ft->on || !ft->shadow)
			continue;
		for (int y = (int)(sy - 20); y <= (int)(sy + 20); y++)
			for (int x = (int)(sx - 30); x <= (int)(sx + 30); x++) {
				double c;

				if (x < 0 || y < 0 || x >= W || y >= H)
					continue;
				c = cover(x, y, sx, sy, FOOT_A + 3, FOOT_B + 3, 4);
				px[y * W + x] *= (float)(1 - (1 - SHADOW_RATIO) * c);
			}
	}
	for (int f = 0; f < MAX_FEET; f++) {
		const struct foot *ft = &s->feet[f];

		double a = ft->a > 0 ? ft->a : FOOT_A, b = ft->b > 0 ? ft->b : FOOT_B;

		if (!ft->on)
			continue;
		for (int y = (int)(ft->y - b - 4); y <= (int)(ft->y + b + 4); y++)
			for (int x = (int)(ft->x - a - 3); x <= (int)(ft->x + a + 3); x++) {
				double c, level;
				int tx = ((int)lround(x - ft->x) + 32) & 63;
				int ty = ((int)lround(y - ft->y) + 32) & 63;

				if (x < 0 || y < 0 || x >= W || y >= H)
					continue;
				c = cover(x, y, ft->x, ft->y, a, b, 1.5);
				if (ft->hole_a > 0)
					c *= 1 - cover(x, y, ft->x, ft->y, ft->hole_a, ft->hole_b, 1.5);
				level = ((ft->dark ? DARK_FOOT : BRIGHT_FOOT) +
					 s->foot_tex[ty * 64 + tx] * (ft->dark ? 0.6 : 1)) *
					vignette(x, y);
				px[y * W + x] = (float)(px[y * W + x] * (1 - c) + level * c);
			}
	}
	for (int y = s->patch ? s->patch_y : H; y < s->patch_y + PATCH_SIDE && y < H; y++)
		for (int x = s->patch_x; x < s->patch_x + PATCH_SIDE && x < W; x++)
			px[y * W + x] += (float)PATCH_LEVEL;
	for (int y = 0; y < H; y++) {
		for (int x = 0; x < W; x++) {
			double val = px[y * W + x] * s->gain, sigma = NOISE_SIGMA;

			if (s->ripple_amp > 0)
				val += s->ripple_amp * sin(0.13 * x + 0.05 * y - s->ripple_phase);
			if (s->noisy_edges > 0)
				sigma *= 1 + s->noisy_edges * (1 - vignette(x, y)) / (VIGNETTE / 2);
			val += sigma * s->gauss[next_rand(&s->rng) & (GAUSS_N - 1)];
			out[y * W + x] = (uint8_t)(val < 0 ? 0 : val > 255 ? 255 : lround(val));
		}
	}
}

/* A keystoned view: the camera above the near edge sees the far one smaller. */
static const double view_corners[8] = { 0.06, 0.05, 0.94, 0.03, 0.98, 0.97, 0.02, 0.95 };

static struct vision_config config(double fps, double absorb_s)
{
	struct vision_config c = {
		.width = W, .height = H, .fps = fps, .absorb_s = absorb_s,
		.min_size_mm = 60, .surface_mm_w = SURFACE_W_MM, .surface_mm_h = SURFACE_H_MM,
	};

	if (homography_from_corners(view_corners, &c.to_surface) < 0)
		homography_identity(&c.to_surface);
	return c;
}

static bool run_start(struct run *r, struct scene *s, double fps, double absorb_s)
{
	struct vision_config c = config(fps, absorb_s);

	r->s = s;
	r->fps = fps;
	r->frame = 0;
	r->v = NULL;
	REQUIRE_EQ(vision_create(&c, &r->v), 0);
	return true;
}

static double run_time(const struct run *r)
{
	return r->frame / r->fps;
}

static void step(struct run *r)
{
	render(r->s, r->img);
	CHECK_EQ(vision_process(r->v, r->img, W, (uint64_t)(r->frame * NS_PER_S / r->fps)), 0);
	r->frame++;
}

static void run_for(struct run *r, double seconds)
{
	uint64_t end = r->frame + (uint64_t)lround(seconds * r->fps);

	while (r->frame < end)
		step(r);
}

/* The confirmed tracks now, into t (VISION_MAX_TRACKS of them). */
static int confirmed(const struct run *r, struct vision_track *t)
{
	struct vision_track all[VISION_MAX_TRACKS];
	int n = vision_tracks(r->v, all, VISION_MAX_TRACKS), k = 0;

	for (int i = 0; i < n; i++)
		if (all[i].confirmed)
			t[k++] = all[i];
	return k;
}

static bool has_track(const struct run *r, uint32_t id)
{
	struct vision_track all[VISION_MAX_TRACKS];
	int n = vision_tracks(r->v, all, VISION_MAX_TRACKS);

	for (int i = 0; i < n; i++)
		if (all[i].id == id)
			return true;
	return false;
}

/* The floor point (mm) of a pixel position. */
static void floor_mm(const struct run *r, double x, double y, double *mx, double *my)
{
	struct vision_config c = config(r->fps, 1);
	double u, v;

	homography_apply(&c.to_surface, (x + 0.5) / W, (y + 0.5) / H, &u, &v);
	*mx = u * SURFACE_W_MM;
	*my = v * SURFACE_H_MM;
}

static double error_mm(const struct run *r, const struct vision_track *t, double x, double y)
{
	double mx, my;

	floor_mm(r, x, y, &mx, &my);
	return hypot(t->u * SURFACE_W_MM - mx, t->v * SURFACE_H_MM - my);
}

/* Frames until a track is confirmed, at most max; its id into id. */
static int until_confirmed(struct run *r, int max, struct vision_track *t)
{
	for (int k = 1; k <= max; k++) {
		step(r);
		if (confirmed(r, t) == 1)
			return k;
	}
	return -1;
}

/* A foot appears (confirmed within a few frames where it is, its size a
 * foot's, its mask the foot), walks (one id, within POS_TOL_MM), leaves
 * (lifted within VISION_LIFT_S), then stands still elsewhere (absorbed:
 * lifted after about absorb_s, not before half of it). */
static void foot_life(void)
{
	/* The track's position against the foot's: the alpha-beta filter
	 * predicts with the velocity, so a steady walk is followed closely. */
	const double POS_TOL_MM = 40, ABSORB_S = 4, WALK_PX_S = 100;
	static struct scene s;
	struct run r;
	struct vision_track t[VISION_MAX_TRACKS];
	struct vision_counts c;
	int frames, inside = 0, outside = 0;
	double worst = 0, gone_s = -1, t0;
	uint32_t id;

	scene_init(&s, 1);
	if (!run_start(&r, &s, 60, ABSORB_S))
		return;
	run_for(&r, LEARN_S);
	vision_get_counts(r.v, &c);
	CHECK_EQ(c.state, VISION_RUNNING);
	s.feet[0] = (struct foot){ .on = true, .x = 80, .y = 120, .shadow = true };
	frames = until_confirmed(&r, VISION_CONFIRM_FRAMES + 3, t);
	printf("foot confirmed after %d frames at %.0f mm from it, %.0f mm across\n", frames,
	       frames > 0 ? error_mm(&r, &t[0], 80, 120) : -1.0, frames > 0 ? t[0].size_mm : -1.0);
	CHECK(frames >= VISION_CONFIRM_FRAMES);
	if (frames < 0)
		goto out;
	CHECK(error_mm(&r, &t[0], 80, 120) < POS_TOL_MM);
	/* 26 x 12 px, about 10.5 mm a pixel: an ellipse 270 x 125 mm, 185 across */
	CHECK(t[0].size_mm > 140 && t[0].size_mm < 240);
	/* the mask: the foot's pixels in, the shadow's and the floor's out */
	for (int y = 0; y < H; y++)
		for (int x = 0; x < W; x++) {
			bool in = cover(x, y, 80, 120, FOOT_A, FOOT_B, 1.5) > 0.5;
			bool fg = vision_foreground(r.v)[y * W + x] == 255;

			inside += in && fg;
			outside += !in && fg && cover(x, y, 80, 120, FOOT_A + 2, FOOT_B + 2, 1) == 0;
		}
	printf("mask: %d of the foot's %d pixels, %d beyond it\n", inside,
	       (int)(M_PI * FOOT_A * FOOT_B), outside);
	CHECK(inside > 0.85 * M_PI * FOOT_A * FOOT_B);
	CHECK(outside < 20);
	id = t[0].id;
	/* walk to the right at 1 m/s or so */
	for (int k = 1; s.feet[0].x < 240; k++) {
		s.feet[0].x += WALK_PX_S / r.fps;
		step(&r);
		if (confirmed(&r, t) != 1 || t[0].id != id) {
			CHECK_FAILED_("one track, id %u, while walking (frame %d)", id, k);
			goto out;
		}
		if (k > 10)
			worst = fmax(worst, error_mm(&r, &t[0], s.feet[0].x, s.feet[0].y));
	}
	printf("walking: worst %.1f mm from the foot (bound %.0f)\n", worst, POS_TOL_MM);
	CHECK(worst < POS_TOL_MM);
	/* leaves */
	s.feet[0].on = false;
	t0 = run_time(&r);
	while (run_time(&r) - t0 < 1 && gone_s < 0) {
		step(&r);
		if (!has_track(&r, id))
			gone_s = run_time(&r) - t0;
	}
	printf("left: lifted after %.3f s\n", gone_s);
	CHECK(gone_s > 0 && gone_s <= VISION_LIFT_S + 2 / r.fps);
	/* stands still until absorbed */
	s.feet[0] = (struct foot){ .on = true, .x = 170, .y = 90 };
	t0 = run_time(&r);
	frames = until_confirmed(&r, VISION_CONFIRM_FRAMES + 3, t);
	CHECK(frames > 0);
	if (frames < 0)
		goto out;
	CHECK(t[0].id > id);
	id = t[0].id;
	gone_s = -1;
	while (run_time(&r) - t0 < 3 * ABSORB_S && gone_s < 0) {
		step(&r);
		if (!has_track(&r, id))
			gone_s = run_time(&r) - t0;
	}
	printf("standing still: absorbed, lifted after %.2f s (absorb_s %.0f)\n", gone_s, ABSORB_S);
	CHECK(gone_s >= ABSORB_S / 2 && gone_s <= ABSORB_S + 1);
	/* and stays absorbed: no new track where it stands */
	run_for(&r, 1);
	CHECK_EQ(confirmed(&r, t), 0);
out:
	vision_destroy(r.v);
}

/* A foot running at 3 m/s seen at 15 frames a second (the camera's rate
 * dropped to a quarter): 210 mm between frames, one id all along. */
static void fast_walk(void)
{
	const int SKIP = 4;
	const double RUN_PX_S = 300;
	static struct scene s;
	struct run r;
	struct vision_track t[VISION_MAX_TRACKS];
	uint32_t id;
	int frames = 0;

	scene_init(&s, 12);
	if (!run_start(&r, &s, 60, 30))
		return;
	run_for(&r, LEARN_S);
	s.feet[0] = (struct foot){ .on = true, .x = 40, .y = 130 };
	run_for(&r, 0.5);
	if (confirmed(&r, t) != 1) {
		CHECK_FAILED_("%s", "a foot standing, seen");
		goto out;
	}
	id = t[0].id;
	while (s.feet[0].x < 280) {
		s.feet[0].x += RUN_PX_S * SKIP / r.fps;
		r.frame += SKIP - 1;
		step(&r);
		frames++;
		if (confirmed(&r, t) != 1 || t[0].id != id) {
			CHECK_FAILED_("one track, id %u, at %.0f px (%d frames)", id, s.feet[0].x,
				      frames);
			goto out;
		}
	}
	printf("running at %.1f m/s seen at %.0f fps: one id over %d frames, %.0f mm/s\n",
	       t[0].speed_mm_s / 1000, r.fps / SKIP, frames, t[0].speed_mm_s);
out:
	vision_destroy(r.v);
}

/* A visitor stands on the floor, then leaves, while the first model is
 * learnt: no trace of them after (their share of each pixel's mean would
 * be a ghost, and of its noise a blind spot), a foot there seen. */
static void left_while_learning(void)
{
	static struct scene s;
	struct run r;
	struct vision_counts c;
	struct vision_track t[VISION_MAX_TRACKS];
	int most = 0, frames;

	scene_init(&s, 13);
	if (!run_start(&r, &s, 60, 30))
		return;
	/* stands for 0.4 s, walks off at 3 m/s, gone by 0.7 s of the 1 s */
	s.feet[0] = (struct foot){ .on = true, .x = 120, .y = 120 };
	while (run_time(&r) < LEARN_S) {
		if (run_time(&r) >= 0.4)
			s.feet[0].x += 300 / r.fps;
		s.feet[0].on = s.feet[0].x < 200;
		step(&r);
	}
	vision_get_counts(r.v, &c);
	CHECK_EQ(c.state, VISION_RUNNING);
	for (int k = 0; k < 30; k++) {
		step(&r);
		vision_get_counts(r.v, &c);
		most = c.blobs > most ? c.blobs : most;
	}
	/* and a foot where they stood is seen as anywhere */
	s.feet[0] = (struct foot){ .on = true, .x = 120, .y = 120 };
	frames = until_confirmed(&r, VISION_CONFIRM_FRAMES + 3, t);
	printf("stood and left while learning: at most %d blobs after; a foot there confirmed "
	       "after %d frames\n", most, frames);
	CHECK_EQ(most, 0);
	CHECK(frames > 0);
	vision_destroy(r.v);
}

/* Two feet walk together, stand together, part: no id reused, at most one
 * new id on parting, two tracks after. */
static bool merge_part(void)
{
	const double SPEED_PX_S = 60;
	static struct scene s;
	struct run r;
	struct vision_track t[VISION_MAX_TRACKS];
	uint32_t before[2], max_id = 0;
	bool lifted[64] = { false }, alive[64] = { false };

	scene_init(&s, 2);
	if (!run_start(&r, &s, 60, 30))
		return false;
	run_for(&r, LEARN_S);
	s.feet[0] = (struct foot){ .on = true, .x = 100, .y = 120 };
	s.feet[1] = (struct foot){ .on = true, .x = 220, .y = 124 };
	run_for(&r, 0.2);
	REQUIRE_EQ(confirmed(&r, t), 2);
	before[0] = t[0].id;
	before[1] = t[1].id;
	max_id = before[0] > before[1] ? before[0] : before[1];
	/* together, stand, part: 1 s, 0.5 s, 1 s */
	for (int phase = 0; phase < 3; phase++) {
		double dir = phase == 0 ? 1 : phase == 1 ? 0 : -1;

		for (int k = 0; k < (phase == 1 ? 30 : 60); k++) {
			struct vision_track all[VISION_MAX_TRACKS];
			int n;

			s.feet[0].x += dir * SPEED_PX_S / r.fps;
			s.feet[1].x -= dir * SPEED_PX_S / r.fps;
			step(&r);
			n = vision_tracks(r.v, all, VISION_MAX_TRACKS);
			for (int i = 0; i < 64; i++)
				if (alive[i])
					lifted[i] = true;   /* until seen below */
			for (int i = 0; i < n; i++) {
				uint32_t id = all[i].id;

				REQUIRE(id < 64);
				if (lifted[id] && !alive[id])
					CHECK_FAILED_("id %u reused", id);
				lifted[id] = false;
				max_id = id > max_id ? id : max_id;
			}
			for (int i = 0; i < 64; i++)
				alive[i] = false;
			for (int i = 0; i < n; i++)
				alive[all[i].id] = true;
		}
	}
	{
		int n = confirmed(&r, t), fresh = 0;

		for (int i = 0; i < n; i++)
			fresh += t[i].id != before[0] && t[i].id != before[1];
		printf("merged and parted: %d tracks, %d new ids, ids up to %u\n", n, fresh, max_id);
		CHECK_EQ(n, 2);
		CHECK(fresh <= 1);
		CHECK(max_id <= before[0] + 2 && max_id <= before[1] + 2);
	}
	vision_destroy(r.v);
	return true;
}

/* Frames of the scene for seconds: how many distinct confirmed ids. */
static int false_tracks(struct run *r, double seconds)
{
	uint32_t ids[256];
	int nids = 0;
	uint64_t end = r->frame + (uint64_t)lround(seconds * r->fps);

	while (r->frame < end) {
		struct vision_track t[VISION_MAX_TRACKS];
		int n;

		step(r);
		n = confirmed(r, t);
		for (int i = 0; i < n; i++) {
			int k = 0;

			while (k < nids && ids[k] != t[i].id)
				k++;
			if (k == nids && nids < 256)
				ids[nids++] = t[i].id;
		}
	}
	return nids;
}

/* Noise alone, four times as much in the corners as in the middle: no
 * track (each pixel's own threshold); a faint stain: no blob (hysteresis). */
static void sensor_noise(void)
{
	static struct scene s;
	struct run r;
	struct vision_counts c;
	int n, most = 0;

	scene_init(&s, 3);
	s.noisy_edges = 3;
	if (!run_start(&r, &s, 30, 30))
		return;
	run_for(&r, LEARN_S);
	n = false_tracks(&r, 30);
	vision_get_counts(r.v, &c);
	printf("noise alone (sigma %.1f in the middle, %.1f in the corners), 30 s: %d tracks, "
	       "%llu relearns, state %s\n", NOISE_SIGMA, NOISE_SIGMA * 4, n,
	       (unsigned long long)c.relearns, vision_state_name(c.state));
	CHECK_EQ(n, 0);
	/* a faint stain, between the thresholds: nothing seeds it */
	s.patch = true;
	s.patch_x = 140;
	s.patch_y = 100;
	for (int k = 0; k < 15; k++) {
		step(&r);
		vision_get_counts(r.v, &c);
		most = c.blobs > most ? c.blobs : most;
	}
	printf("a stain %.1f grey levels bright, %d pixels square: at most %d blobs\n",
	       PATCH_LEVEL, PATCH_SIDE, most);
	CHECK_EQ(most, 0);
	CHECK_EQ(c.relearns, 0);
	CHECK_EQ(c.state, VISION_RUNNING);
	vision_destroy(r.v);
}

/* An empty floor for seconds at fps under a light that ramps to x2 over
 * them, or flickers +-10 % at 100 Hz: no track, no relearn, not taken for
 * the projection. */
static void under_light(uint32_t seed, double fps, double seconds, bool flicker)
{
	static struct scene s;
	struct run r;
	struct vision_counts c;
	int n = 0;
	bool projection = false;

	scene_init(&s, seed);
	if (!run_start(&r, &s, fps, 30))
		return;
	run_for(&r, LEARN_S);
	for (int k = 0; k < lround(seconds * fps); k++) {
		s.gain = flicker ? 1 + 0.1 * sin(2 * M_PI * 100 * r.frame / r.fps) :
			 1 + k / (seconds * fps);
		n += false_tracks(&r, 1 / r.fps);
		vision_get_counts(r.v, &c);
		projection |= c.sees_projection;
	}
	printf("%s over %.0f s: %d track frames, %llu relearns, projection seen %d\n",
	       flicker ? "flicker +-10 % at 100 Hz" : "a ramp to x2", seconds, n,
	       (unsigned long long)c.relearns, projection);
	CHECK_EQ(n, 0);
	CHECK(!projection);
	CHECK_EQ(c.relearns, 0);
	vision_destroy(r.v);
}

/* The lights: a step x1.5 (relearnt, a handful of false tracks at most, a
 * foot seen after), a ramp x2 over 20 s and a flicker of +-10 % at 100 Hz
 * seen at 60 fps (no track, no relearn). */
static void lights(void)
{
	static struct scene s;
	struct run r;
	struct vision_track t[VISION_MAX_TRACKS];
	struct vision_counts c;
	int n;

	scene_init(&s, 4);
	if (!run_start(&r, &s, 60, 30))
		return;
	run_for(&r, LEARN_S + 1);
	s.gain = 1.5;
	n = false_tracks(&r, 3);
	vision_get_counts(r.v, &c);
	printf("light step x1.5: %llu relearns, %d false tracks, state %s\n",
	       (unsigned long long)c.relearns, n, vision_state_name(c.state));
	CHECK_EQ(c.relearns, 1);
	CHECK(n <= 3);
	CHECK_EQ(c.state, VISION_RUNNING);
	s.feet[0] = (struct foot){ .on = true, .x = 150, .y = 150 };
	CHECK(until_confirmed(&r, VISION_CONFIRM_FRAMES + 3, t) > 0);
	vision_destroy(r.v);

	under_light(5, 30, 20, false);
	under_light(6, 60, 10, true);
}

/* A foot, bright or dark, walking with its shadow beside it: one track. */
static void shadows(void)
{
	for (int dark = 0; dark <= 1; dark++) {
		static struct scene s;
		struct run r;
		struct vision_track t[VISION_MAX_TRACKS];
		uint32_t first = 0;
		int most = 0, others = 0;

		scene_init(&s, 7 + dark);
		if (!run_start(&r, &s, 60, 30))
			return;
		run_for(&r, LEARN_S);
		/* the shadow a step beside the foot, apart from it */
		s.feet[0] = (struct foot){ .on = true, .dark = dark, .shadow = true, .x = 60,
					   .y = 100, .shadow_dx = 30 };
		for (int k = 0; k < 120; k++) {
			int n;

			s.feet[0].x += 1.5;
			step(&r);
			n = confirmed(&r, t);
			most = n > most ? n : most;
			for (int i = 0; i < n; i++) {
				if (!first)
					first = t[i].id;
				others += t[i].id != first;
			}
		}
		printf("%s foot with its shadow: at most %d tracks at once, %d frames of others\n",
		       dark ? "dark" : "bright", most, others);
		CHECK_EQ(most, 1);
		CHECK_EQ(others, 0);
		CHECK_EQ(confirmed(&r, t), 1);
		vision_destroy(r.v);
	}
}

/*
 * A foot with the floor's grey in its middle (a shoe's sole, a shirt from
 * above) is seen whole: its hole filled. Floor enclosed by a ring much
 * wider than a body (visitors holding hands around it) stays floor.
 */
static void holes(void)
{
	/* about 10.5 mm a pixel: a hole of 16 x 10 px, 170 x 105 mm; a ring
	 * of 45 x 30 px around floor of 36 x 22 px, 380 x 230 mm across */
	const struct { double a, b, hole_a, hole_b; bool filled; } cases[] = {
		{ 16, 11, 8, 5, true },
		{ 45, 30, 36, 22, false },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		static struct scene s;
		struct run r;
		struct vision_track t[VISION_MAX_TRACKS];
		int hole = 0, seen = 0;

		scene_init(&s, 11 + (uint32_t)k);
		if (!run_start(&r, &s, 60, 30))
			return;
		run_for(&r, LEARN_S);
		s.feet[0] = (struct foot){ .on = true, .x = 160, .y = 120,
					   .a = cases[k].a, .b = cases[k].b,
					   .hole_a = cases[k].hole_a, .hole_b = cases[k].hole_b };
		CHECK(until_confirmed(&r, VISION_CONFIRM_FRAMES + 3, t) > 0);
		/* the hole's pixels away from its rim */
		for (int y = 0; y < H; y++)
			for (int x = 0; x < W; x++) {
				if (cover(x, y, 160, 120, cases[k].hole_a - 2, cases[k].hole_b - 2,
					  1) < 1)
					continue;
				hole++;
				seen += vision_foreground(r.v)[y * W + x] == 255;
			}
		printf("a hole of %.0f x %.0f px in %.0f x %.0f: %d of its %d pixels seen\n",
		       2 * cases[k].hole_a, 2 * cases[k].hole_b, 2 * cases[k].a, 2 * cases[k].b,
		       seen, hole);
		CHECK(hole > 0);
		if (cases[k].filled)
			CHECK_EQ(seen, hole);
		else
			CHECK(seen < hole / 20);
		vision_destroy(r.v);
	}
}

/* Every pixel random for 2 s: blobs capped, flooded, quiet after. */
static void flood(void)
{
	static struct scene s;
	struct run r;
	struct vision_counts c;
	bool flooded = false;
	int most = 0, n;

	scene_init(&s, 9);
	if (!run_start(&r, &s, 60, 30))
		return;
	run_for(&r, LEARN_S + 1);
	s.flood = true;
	for (int k = 0; k < 120; k++) {
		step(&r);
		vision_get_counts(r.v, &c);
		flooded |= c.state == VISION_FLOODED;
		most = c.blobs > most ? c.blobs : most;
	}
	s.flood = false;
	run_for(&r, 2);
	n = false_tracks(&r, 2);
	vision_get_counts(r.v, &c);
	printf("flood: at most %d blobs, flooded %d (%llu floods), then %s with %d tracks\n", most,
	       flooded, (unsigned long long)c.floods, vision_state_name(c.state), n);
	CHECK(most <= VISION_MAX_BLOBS);
	CHECK(flooded);
	CHECK_EQ(c.floods, 1);
	CHECK_EQ(c.state, VISION_RUNNING);
	CHECK_EQ(n, 0);
	vision_destroy(r.v);
}

/* A rippling low-contrast light over an empty floor is the projection
 * seen; a still floor is not. */
static void projection(void)
{
	static struct scene s;
	struct run r;
	struct vision_counts c;
	bool ever = false;

	scene_init(&s, 10);
	if (!run_start(&r, &s, 60, 30))
		return;
	run_for(&r, LEARN_S);
	for (int k = 0; k < 10 * 60; k++) {
		step(&r);
		vision_get_counts(r.v, &c);
		ever |= c.sees_projection;
	}
	CHECK(!ever);
	s.ripple_amp = 8;
	for (int k = 0; k < 10 * 60; k++) {
		s.ripple_phase += 2.0;
		step(&r);
	}
	vision_get_counts(r.v, &c);
	printf("rippling: sees the projection %d (state %s); still floor: %d\n",
	       c.sees_projection, vision_state_name(c.state), ever);
	CHECK(c.sees_projection);
	vision_destroy(r.v);
}

/* A dot blurred over a few pixels, amplitude amp at (x, y), onto f. */
static void dot(uint8_t *f, double x, double y, double amp)
{
	for (int j = 0; j < H; j++)
		for (int i = 0; i < W; i++) {
			double d2 = (i - x) * (i - x) + (j - y) * (j - y);
			double v = f[j * W + i] + amp * exp(-d2 / (2 * 2.0 * 2.0));

			f[j * W + i] = (uint8_t)(v > 255 ? 255 : lround(v));
		}
}

static void marker(void)
{
	const double X = 123.3, Y = 77.6;
	static struct scene s;
	static uint8_t dark[W * H], lit[W * H];
	double x = -1, y = -1;

	scene_init(&s, 11);
	render(&s, dark);
	render(&s, lit);
	dot(lit, X, Y, 60);
	CHECK_EQ(vision_find_marker(dark, lit, W, H, W, &x, &y), 0);
	printf("marker at %.2f, %.2f (it is at %.2f, %.2f)\n", x, y, X, Y);
	CHECK(hypot(x - X, y - Y) < 0.5);
	render(&s, lit);
	CHECK_EQ(vision_find_marker(dark, lit, W, H, W, &x, &y), -ENOENT);
	dot(lit, X, Y, 60);
	dot(lit, 250, 180, 55);
	CHECK_EQ(vision_find_marker(dark, lit, W, H, W, &x, &y), -ENOENT);
}

static bool refused(void)
{
	struct vision_config good = config(60, 30), c;
	struct vision *v = (struct vision *)&good;
	static uint8_t frame[W * H];

#define REFUSED(field, value) do { \
	c = good; \
	c.field = value; \
	CHECK_EQ(vision_create(&c, &v), -EINVAL); \
	CHECK(v == NULL); \
} while (0)
	REFUSED(width, 0);
	REFUSED(width, VISION_MAX_W + 1);
	REFUSED(height, -1);
	REFUSED(height, VISION_MAX_H + 1);
	REFUSED(fps, 0);
	REFUSED(fps, NAN);
	REFUSED(absorb_s, 0);
	REFUSED(absorb_s, INFINITY);
	REFUSED(min_size_mm, -1);
	REFUSED(surface_mm_w, 0);
	REFUSED(surface_mm_h, -5);
	REFUSED(to_surface.m[3], NAN);
#undef REFUSED
	REQUIRE_EQ(vision_create(&good, &v), 0);
	CHECK_EQ(vision_process(v, frame, W - 1, 0), -EINVAL);
	CHECK_EQ(vision_process(v, NULL, W, 0), -EINVAL);
	CHECK_EQ(vision_process(v, frame, W, 1000), 0);
	CHECK_EQ(vision_process(v, frame, W, 999), -EINVAL);   /* out of order */
	vision_destroy(v);
	vision_destroy(NULL);
	return true;
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	RUN(foot_life);
	RUN(fast_walk);
	RUN(left_while_learning);
	RUN(merge_part);
	RUN(sensor_noise);
	RUN(lights);
	RUN(shadows);
	RUN(holes);
	RUN(flood);
	RUN(projection);
	RUN(marker);
	RUN(refused);
	return CHECK_EXIT();
}
