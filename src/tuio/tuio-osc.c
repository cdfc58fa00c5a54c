/*
 * TUIO's messages through liblo: the bundles taken apart and each
 * message's arguments checked by liblo (lo_server_dispatch_data), the
 * profiles' commands read here into a frame per profile, committed at the
 * profile's fseq (1.1), its alv (2.0), or the bundle's end.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lo/lo.h>

#include "base/log.h"
#include "tuio/tuio-private.h"

/* TUIO 1.1 set messages' arguments after "set", as the profiles lay them
 * out: the session id, then floats (2Dobj: the class id, then floats). */
#define CUR_SET_FLOATS 2      /* x y (then X Y m, not read) */
#define BLB_SET_FLOATS 5      /* x y a w h (then f X Y A m r) */
#define OBJ_SET_FLOATS 2      /* after s i: x y (then a X Y A m r) */
/* /tuio2/ptr s_id tu_id c_id x y a shear radius press [...] */
#define PTR_IDS 3
#define PTR_FLOATS 6
#define PTR_X 3
#define PTR_RADIUS 7
#define PTR_PRESS 8

/*
 * An argument's value: liblo's lo_arg points into the message, 4-byte
 * aligned, while the union asks for 8 (it holds doubles): read it as
 * bytes, never through the union.
 */
static int32_t arg_i32(const lo_arg *a)
{
	int32_t v;

	memcpy(&v, (const void *)a, sizeof(v));
	return v;
}

static const char *arg_str(const lo_arg *a)
{
	return (const char *)(const void *)a;
}

static bool number(char type, const lo_arg *a, double *out)
{
	float f;

	if (type == LO_FLOAT) {
		memcpy(&f, (const void *)a, sizeof(f));
		*out = f;
	} else if (type == LO_DOUBLE) {
		memcpy(out, (const void *)a, sizeof(*out));
	} else {
		return false;
	}
	return true;
}

/* The source's name, whole: liblo has checked that it ends within the
 * message, so within a datagram. */
static void name(struct tuio *t, const char *text)
{
	size_t len = strnlen(text, TUIO_DATAGRAM_MAX - 1);

	memcpy(t->name, text, len);
	t->name[len] = '\0';
	t->name_len = len;
}

/* The frame of profile pr, open: another profile's is committed first. */
static struct tuio_frame *frame_of(struct tuio *t, enum tuio_profile pr)
{
	struct tuio_frame *f = &t->frame;

	if (f->open && f->profile == pr)
		return f;
	tracks_commit(t, f);
	f->open = true;
	f->profile = pr;
	f->has_seq = f->has_alive = false;
	f->n_alive = f->n_sets = 0;
	return f;
}

static void bad(struct tuio *t, enum tuio_reject why)
{
	tracks_reject(t, why);
}

/* alive ids... / alv ids...: every argument an id. */
static void read_alive(struct tuio *t, struct tuio_frame *f, const char *types, lo_arg **argv,
		       int from, int argc)
{
	f->has_alive = true;
	f->n_alive = 0;
	for (int i = from; i < argc; i++) {
		if (types[i] != LO_INT32) {
			bad(t, TUIO_REJECT_ARGUMENTS);
			continue;
		}
		if (f->n_alive < TUIO_ALIVE_MAX)
			f->alive[f->n_alive++] = arg_i32(argv[i]);
	}
}

static void add_set(struct tuio *t, struct tuio_frame *f, const struct tuio_set *s)
{
	if (!isfinite(s->x) || !isfinite(s->y) || !isfinite(s->size) || !isfinite(s->pressure)) {
		bad(t, TUIO_REJECT_VALUE);
		return;
	}
	if (f->n_sets >= TUIO_SETS_MAX) {
		bad(t, TUIO_REJECT_POINTS);
		return;
	}
	f->sets[f->n_sets++] = *s;
}

/* argv[first..first+n-1] are all numbers, into out. */
static bool numbers(const char *types, lo_arg **argv, int argc, int first, int n, double *out)
{
	if (first + n > argc)
		return false;
	for (int i = 0; i < n; i++)
		if (!number(types[first + i], argv[first + i], &out[i]))
			return false;
	return true;
}

/* "set" of a TUIO 1.1 profile. */
static void read_set(struct tuio *t, enum tuio_profile pr, const char *types, lo_arg **argv,
		     int argc)
{
	struct tuio_set s = { 0 };
	double v[BLB_SET_FLOATS];
	int first = pr == PROFILE_OBJ ? 3 : 2;
	int n = pr == PROFILE_BLB ? BLB_SET_FLOATS : pr == PROFILE_OBJ ? OBJ_SET_FLOATS
								      : CUR_SET_FLOATS;

	if (argc < 2 || types[1] != LO_INT32 || (pr == PROFILE_OBJ && types[2] != LO_INT32) ||
	    !numbers(types, argv, argc, first, n, v)) {
		bad(t, TUIO_REJECT_ARGUMENTS);
		return;
	}
	s.id = arg_i32(argv[1]);
	s.x = v[0];
	s.y = v[1];
	/* A blob's width and height: its longer side, a foot's length. */
	if (pr == PROFILE_BLB)
		s.size = fabs(v[3]) > fabs(v[4]) ? fabs(v[3]) : fabs(v[4]);
	add_set(t, frame_of(t, pr), &s);
}

/* fseq n: the profile's frame is whole. */
static void read_fseq(struct tuio *t, enum tuio_profile pr, const char *types, lo_arg **argv,
		      int argc)
{
	struct tuio_frame *f;

	if (argc < 2 || types[1] != LO_INT32) {
		bad(t, TUIO_REJECT_ARGUMENTS);
		return;
	}
	f = frame_of(t, pr);
	f->has_seq = true;
	f->seq = arg_i32(argv[1]);
	tracks_commit(t, f);
}

static enum tuio_profile profile_of(const char *path)
{
	if (strcmp(path, "/tuio/2Dblb") == 0)
		return PROFILE_BLB;
	if (strcmp(path, "/tuio/2Dobj") == 0)
		return PROFILE_OBJ;
	return PROFILE_CUR;
}

/* /tuio/2Dcur, /tuio/2Dblb, /tuio/2Dobj: source, alive, set, fseq. */
static int on_tuio1(const char *path, const char *types, lo_arg **argv, int argc, lo_message m,
		    void *data)
{
	struct tuio *t = data;
	enum tuio_profile pr = profile_of(path);
	const char *cmd;

	(void)m;
	if (argc < 1 || types[0] != LO_STRING) {
		bad(t, TUIO_REJECT_ARGUMENTS);
		return 0;
	}
	cmd = arg_str(argv[0]);
	if (strcmp(cmd, "set") == 0) {
		read_set(t, pr, types, argv, argc);
	} else if (strcmp(cmd, "alive") == 0) {
		read_alive(t, frame_of(t, pr), types, argv, 1, argc);
	} else if (strcmp(cmd, "fseq") == 0) {
		read_fseq(t, pr, types, argv, argc);
	} else if (strcmp(cmd, "source") == 0) {
		if (argc < 2 || types[1] != LO_STRING || !arg_str(argv[1])[0]) {
			bad(t, TUIO_REJECT_ARGUMENTS);
			return 0;
		}
		name(t, arg_str(argv[1]));
	} else {
		bad(t, TUIO_REJECT_ARGUMENTS);
	}
	return 0;
}

/* /tuio2/frm f_id time dim source: the frame's number and its source. */
static int on_frm(const char *path, const char *types, lo_arg **argv, int argc, lo_message m,
		  void *data)
{
	struct tuio *t = data;
	struct tuio_frame *f;

	(void)path;
	(void)m;
	if (argc < 1 || types[0] != LO_INT32) {
		bad(t, TUIO_REJECT_ARGUMENTS);
		return 0;
	}
	tracks_commit(t, &t->frame);
	if (argc >= 4 && types[3] == LO_STRING && arg_str(argv[3])[0])
		name(t, arg_str(argv[3]));
	f = frame_of(t, PROFILE_PTR);
	f->has_seq = true;
	/* f_id is unsigned 32 bits in TUIO 2.0. */
	f->seq = (uint32_t)arg_i32(argv[0]);
	return 0;
}

/* /tuio2/ptr s_id tu_id c_id x y a shear radius press [...] */
static int on_ptr(const char *path, const char *types, lo_arg **argv, int argc, lo_message m,
		  void *data)
{
	struct tuio *t = data;
	struct tuio_set s = { 0 };
	double v[PTR_FLOATS];

	(void)path;
	(void)m;
	for (int i = 0; i < PTR_IDS; i++) {
		if (i >= argc || types[i] != LO_INT32) {
			bad(t, TUIO_REJECT_ARGUMENTS);
			return 0;
		}
	}
	if (!numbers(types, argv, argc, PTR_X, PTR_FLOATS, v)) {
		bad(t, TUIO_REJECT_ARGUMENTS);
		return 0;
	}
	/* A negative pressure is a pointer hovering: no touch, and one
	 * that was down lifts (its id stays alive while it hovers). */
	s.hover = v[PTR_PRESS - PTR_X] < 0;
	s.id = arg_i32(argv[0]);
	s.x = v[0];
	s.y = v[1];
	s.size = 2 * fabs(v[PTR_RADIUS - PTR_X]);
	s.pressure = s.hover ? 0 : v[PTR_PRESS - PTR_X];
	add_set(t, frame_of(t, PROFILE_PTR), &s);
	return 0;
}

/* /tuio2/alv s_ids...: the frame's last message. */
static int on_alv(const char *path, const char *types, lo_arg **argv, int argc, lo_message m,
		  void *data)
{
	struct tuio *t = data;
	struct tuio_frame *f = frame_of(t, PROFILE_PTR);

	(void)path;
	(void)m;
	read_alive(t, f, types, argv, 0, argc);
	tracks_commit(t, f);
	return 0;
}

/* TUIO 2.0's tokens, bounds and symbols, and anything else: not read. */
static int on_other(const char *path, const char *types, lo_arg **argv, int argc, lo_message m,
		    void *data)
{
	(void)path;
	(void)types;
	(void)argv;
	(void)argc;
	(void)m;
	bad(data, TUIO_REJECT_PROFILE);
	return 0;
}

/* A bundle's frames end with it; its source is its own. */
static int bundle_start(lo_timetag time, void *data)
{
	struct tuio *t = data;

	(void)time;
	if (t->depth++ == 0)
		t->name_len = 0;
	return 0;
}

static int bundle_end(void *data)
{
	struct tuio *t = data;

	if (t->depth > 0 && --t->depth == 0) {
		tracks_commit(t, &t->frame);
		t->name_len = 0;
	}
	return 0;
}

void tuio_osc_take(struct tuio *t, void *data, size_t len)
{
	t->depth = 0;
	t->name_len = 0;
	t->frame.open = false;
	if (lo_server_dispatch_data(t->server, data, len) < 0)
		bad(t, TUIO_REJECT_MALFORMED);
	/* A message outside a bundle, or a bundle cut short. */
	tracks_commit(t, &t->frame);
}

/*
 * liblo 0.31 takes a datagram apart only through a server, and makes a
 * server only with a socket of its own. Ours is a Unix socket whose name
 * is unlinked at once: nothing can reach it, and the kiosk reads its own.
 */
static lo_server nameless_server(void)
{
	const char *tmp = getenv("TMPDIR");
	char dir[] = "/tuio-XXXXXX", path[256], base[200];
	lo_server s;

	snprintf(base, sizeof(base), "%s%s", tmp && tmp[0] ? tmp : "/tmp", dir);
	if (!mkdtemp(base))
		return NULL;
	snprintf(path, sizeof(path), "%s/s", base);
	s = lo_server_new_with_proto(path, LO_UNIX, NULL);
	unlink(path);
	rmdir(base);
	return s;
}

int tuio_osc_create(struct tuio *t)
{
	static const char *const v1[] = { "/tuio/2Dcur", "/tuio/2Dblb", "/tuio/2Dobj" };
	lo_server s = nameless_server();

	t->frame.alive = calloc(TUIO_ALIVE_MAX, sizeof(*t->frame.alive));
	t->name = malloc(TUIO_DATAGRAM_MAX);
	if (!s || !t->frame.alive || !t->name) {
		if (s)
			lo_server_free(s);
		return -ENOMEM;
	}
	t->server = s;
	/* A bundle's time tag does not hold its messages back: a tracker's
	 * frame is for now, and a queue would grow at a sender's word. */
	lo_server_enable_queue(s, 0, 1);
	for (size_t i = 0; i < sizeof(v1) / sizeof(v1[0]); i++)
		lo_server_add_method(s, v1[i], NULL, on_tuio1, t);
	lo_server_add_method(s, "/tuio2/frm", NULL, on_frm, t);
	lo_server_add_method(s, "/tuio2/ptr", NULL, on_ptr, t);
	lo_server_add_method(s, "/tuio2/alv", NULL, on_alv, t);
	lo_server_add_method(s, NULL, NULL, on_other, t);
	lo_server_add_bundle_handlers(s, bundle_start, bundle_end, t);
	return 0;
}

void tuio_osc_destroy(struct tuio *t)
{
	if (t->server)
		lo_server_free(t->server);
	free(t->frame.alive);
	free(t->name);
}
