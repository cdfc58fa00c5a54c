/*
 * The camera in the kiosk: its source opened and kept (faults said once
 * and retried), each frame handed to the vision's thread through a mailbox
 * of one (the loop never waits for the vision: a frame that comes while
 * the vision is busy replaces the one waiting, and is counted dropped),
 * and what the vision made of it put on the water by camera_apply() on
 * the loop's thread. In a batch there is no thread: the frames due by the
 * loop's virtual time are processed at once, in order, so that a
 * recording gives the same frames every run.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "camera/camera-private.h"

/* The mailbox's frames, the thread's and the picture's: the vision's largest. */
#define FRAME_BYTES ((size_t)VISION_MAX_W * VISION_MAX_H)

static const char *const state_names[] = {
	[CAMERA_OFF] = "off",
	[CAMERA_STARTING] = "starting",
	[CAMERA_RUNNING] = "running",
	[CAMERA_RELEARNING] = "relearning",
	[CAMERA_FLOODED] = "flooded",
	[CAMERA_STALLED] = "stalled",
	[CAMERA_UNPLUGGED] = "unplugged",
	[CAMERA_BUSY] = "busy",
	[CAMERA_ENDED] = "ended",
};

const char *camera_state_name(enum camera_state s)
{
	return (unsigned)s < ARRAY_SIZE(state_names) && state_names[s] ? state_names[s]
								      : "unknown";
}

static char *dup_or_null(const char *s, bool *failed)
{
	char *d;

	if (!s)
		return NULL;
	if (!(d = strdup(s)))
		*failed = true;
	return d;
}

/* ---- the vision's work, on its thread (or the loop's in a batch) ---- */

/* One frame through the vision, its mask and copy written; what it made
 * into r and the picture into view (both the caller's, under mu in a live
 * run). */
static void vision_run(struct camera *cam, const uint8_t *grey, int w, int h, uint64_t t_ns,
		       uint64_t seq)
{
	if (!cam->vision)
		return;
	if (vision_process(cam->vision, grey, (size_t)w, t_ns) < 0)
		return;
	if (cam->record && camera_record_write(cam->record, seq, grey, w, h, (size_t)w) < 0) {
		camera_record_destroy(cam->record);   /* said by the recorder */
		cam->record = NULL;
	}
	if (cam->masks && camera_record_write(cam->masks, seq, vision_foreground(cam->vision), w,
					      h, (size_t)w) < 0) {
		camera_record_destroy(cam->masks);
		cam->masks = NULL;
	}
}

/* A frame as it was posted to the mailbox (or read, in a batch). */
struct posted {
	int w, h;
	uint64_t t_ns, read_ns, seq, opened;
};

static void publish(struct camera *cam, const uint8_t *grey, const struct posted *p)
{
	struct camera_result *r = &cam->result;
	struct camera_view *pv = &cam->view;
	size_t n = (size_t)p->w * (size_t)p->h;

	if (!cam->vision)
		return;
	r->gen++;
	r->opened = p->opened;
	r->t_ns = p->t_ns;
	r->read_ns = p->read_ns;
	r->n_tracks = vision_tracks(cam->vision, r->tracks, VISION_MAX_TRACKS);
	vision_get_counts(cam->vision, &r->counts);
	memcpy(pv->grey, grey, n);
	memcpy(pv->fg, vision_foreground(cam->vision), n);
	pv->w = p->w;
	pv->h = p->h;
	pv->t_ns = p->t_ns;
	pv->have = true;
	memcpy(pv->tracks, r->tracks, sizeof(pv->tracks));
	pv->n_tracks = r->n_tracks;
}

/* The vision's settings as they are now: made anew (a new size, surface
 * or tuning: the background learnt again), or only calibrated anew.
 * Under mu in a live run. */
static void vision_catch_up(struct camera *cam, const struct vision_config *vc,
			    uint64_t remake_gen, uint64_t calib_gen)
{
	struct vision *v;
	int ret;

	if (cam->vision && remake_gen == cam->made_remake_gen) {
		if (calib_gen != cam->made_calib_gen)
			vision_set_calibration(cam->vision, &vc->to_surface);
		cam->made_calib_gen = calib_gen;
		return;
	}
	vision_destroy(cam->vision);
	cam->vision = NULL;
	cam->made_remake_gen = remake_gen;
	cam->made_calib_gen = calib_gen;
	ret = vision_create(vc, &v);
	if (ret < 0) {
		log_warn("camera: the vision refused %dx%d at %.1f fps: %s", vc->width, vc->height,
			 vc->fps, strerror(-ret));
		return;
	}
	cam->vision = v;
}

static void *vision_thread(void *data)
{
	struct camera *cam = data;

	/* Below the loop and the render's workers: a late camera frame
	 * costs a little latency, a late display frame is seen. */
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), CAMERA_NICE);
	pthread_mutex_lock(&cam->mu);
	while (!cam->quit) {
		struct vision_config vc;
		uint64_t remake, calib;
		struct posted p;
		uint8_t *frame;

		if (!cam->box_full) {
			pthread_cond_wait(&cam->cv, &cam->mu);
			continue;
		}
		frame = cam->box;
		cam->box = cam->work;
		cam->work = frame;
		cam->box_full = false;
		p = (struct posted){ cam->box_w, cam->box_h, cam->box_t_ns, cam->box_read_ns,
				     cam->box_seq, cam->box_opened };
		vc = cam->vcfg;
		remake = cam->remake_gen;
		calib = cam->calib_gen;
		pthread_mutex_unlock(&cam->mu);

		if (cam->cfg.taken)
			cam->cfg.taken(cam->cfg.taken_data);
		if (vc.width != p.w || vc.height != p.h)
			goto next;   /* posted before a reopen at another size */
		vision_catch_up(cam, &vc, remake, calib);
		vision_run(cam, frame, p.w, p.h, p.t_ns, p.seq);

		pthread_mutex_lock(&cam->mu);
		publish(cam, frame, &p);
		pthread_mutex_unlock(&cam->mu);
		/* The loop looks at the result at once (its poll wakes). */
		(void)eventfd_write(cam->efd, 1);
next:
		pthread_mutex_lock(&cam->mu);
	}
	pthread_mutex_unlock(&cam->mu);
	return NULL;
}

/* ---- the source ---- */

static bool streaming(const struct camera *cam)
{
	return cam->src && cam->src->ops->get_fd(cam->src) >= 0;
}

static void close_source(struct camera *cam)
{
	struct camera_source_counts c;

	if (!cam->src)
		return;
	cam->src->ops->get_counts(cam->src, &c);
	cam->src_counts.frames += c.frames;
	cam->src_counts.dropped += c.dropped;
	cam->src_counts.errors += c.errors;
	if (cam->epfd >= 0 && streaming(cam))
		(void)epoll_ctl(cam->epfd, EPOLL_CTL_DEL, cam->src->ops->get_fd(cam->src), NULL);
	camera_source_destroy(cam->src);
	cam->src = NULL;
}

static void set_state(struct camera *cam, enum camera_state s)
{
	cam->state = s;
}

/*
 * The source opened (again). A camera that is not there (yet), or that
 * another program has, is waited for: the state says which and it is
 * looked for again after CAMERA_RETRY_NS or at a video4linux uevent.
 * Anything else (not a camera, no mode it can give, a folder with no
 * frames) fails: 0 or a negative errno, said in one line.
 */
static int open_source(struct camera *cam, uint64_t now, bool first)
{
	struct camera_source_config sc = {
		.device = cam->device,
		.mode = cam->cfg.mode,
		.max_w = cam->cfg.scale_w,
		.max_h = cam->cfg.scale_h,
		.mains_hz = cam->cfg.mains_hz,
		.batch = cam->cfg.batch,
		.io = cam->cfg.io,
	};
	char err[ERR_LEN] = "";
	struct camera_source *s;
	int ret;

	ret = (cam->cfg.open ? cam->cfg.open : camera_source_open)(&sc, &s, err, sizeof(err));
	cam->retry_ns = 0;
	/* The sources name themselves ("camera NAME: ..."); a bare errno too. */
	if (ret < 0 && !err[0])
		snprintf(err, sizeof(err), "camera %s: %s", cam->device, strerror(-ret));
	/* A folder is there or not: only a device is waited for. */
	if (!cam->is_folder &&
	    (ret == -ENOENT || ret == -ENODEV || ret == -EBUSY || (!first && ret < 0))) {
		enum camera_state st = ret == -EBUSY ? CAMERA_BUSY : CAMERA_UNPLUGGED;

		/* Said once as it starts to wait, not at each retry. */
		if (cam->state != st || first)
			log_warn("%s; %s", err,
				 ret == -EBUSY ? "trying again every few seconds"
					       : "waiting for it to be plugged in");
		set_state(cam, st);
		cam->retry_ns = now + CAMERA_RETRY_NS;
		return 0;
	}
	if (ret < 0) {
		log_error("%s", err);
		return ret;
	}
	if (s->vision_w < 1 || s->vision_h < 1 || s->vision_w > VISION_MAX_W ||
	    s->vision_h > VISION_MAX_H) {
		log_error("camera: %s gives frames of %dx%d; expected at most %dx%d", s->name,
			  s->vision_w, s->vision_h, VISION_MAX_W, VISION_MAX_H);
		camera_source_destroy(s);
		return -EINVAL;
	}
	cam->src = s;
	if (cam->epfd >= 0 && streaming(cam)) {
		struct epoll_event ev = { .events = EPOLLIN };

		if (epoll_ctl(cam->epfd, EPOLL_CTL_ADD, s->ops->get_fd(s), &ev) < 0) {
			ret = -errno;
			log_error("camera: watching %s: %s", s->name, strerror(-ret));
			close_source(cam);
			return ret;
		}
	}
	pthread_mutex_lock(&cam->mu);
	if (cam->vcfg.width != s->vision_w || cam->vcfg.height != s->vision_h ||
	    cam->vcfg.fps != s->mode.fps) {
		cam->vcfg.width = s->vision_w;
		cam->vcfg.height = s->vision_h;
		cam->vcfg.fps = s->mode.fps > 0 ? s->mode.fps : 30;
		cam->remake_gen++;
	}
	cam->box_full = false;
	pthread_mutex_unlock(&cam->mu);
	cam->opened++;
	log_info("camera: reading %s, %dx%d at %.4g fps, seen at %dx%d", s->name, s->mode.width,
		 s->mode.height, s->mode.fps, s->vision_w, s->vision_h);
	set_state(cam, CAMERA_STARTING);
	cam->opened_ns = now;
	cam->last_frame_ns = now;
	return 0;
}

/* The camera lost: its touches lifted, looked for again later. */
static void lost(struct camera *cam, enum camera_state st, uint64_t now, const char *why)
{
	/* A camera that stalls again at once after its reopening is said
	 * once, not every 2 s: again when a frame has come in between. */
	if (st != CAMERA_STALLED || !cam->said_stall)
		log_warn("camera: %s %s; its touches lifted%s",
			 cam->src ? cam->src->name : cam->device, why,
			 st == CAMERA_ENDED ? "" : ", looking for it again");
	cam->said_stall = cam->said_stall || st == CAMERA_STALLED;
	close_source(cam);
	camera_touches_lift(cam);
	set_state(cam, st);
	cam->retry_ns = st == CAMERA_ENDED ? 0 : now + (st == CAMERA_STALLED ? 0 : CAMERA_RETRY_NS);
}

static void count_frame(struct camera *cam, uint64_t now)
{
	cam->last_frame_ns = now;
	cam->said_stall = false;
	cam->fps_t[cam->fps_at] = now;
	cam->fps_at = (cam->fps_at + 1) % (int)ARRAY_SIZE(cam->fps_t);
	if (cam->fps_n < (int)ARRAY_SIZE(cam->fps_t))
		cam->fps_n++;
}

/* A frame for the vision's thread: the one waiting, if any, is replaced. */
static void post(struct camera *cam, const struct camera_frame *f, uint64_t now)
{
	size_t n = (size_t)f->width * (size_t)f->height;

	if (f->width != cam->vcfg.width || f->height != cam->vcfg.height || n > FRAME_BYTES)
		return;   /* not the size it opened with: a source's fault, counted there */
	pthread_mutex_lock(&cam->mu);
	if (cam->box_full)
		cam->dropped++;
	memcpy(cam->box, f->grey, n);
	cam->box_t_ns = f->t_ns;
	cam->box_read_ns = now;
	cam->box_seq = f->sequence;
	cam->box_opened = cam->opened;
	cam->box_w = f->width;
	cam->box_h = f->height;
	cam->box_full = true;
	pthread_cond_signal(&cam->cv);
	pthread_mutex_unlock(&cam->mu);
}

/* A batch's frame, processed now on the loop's thread. */
static void process_now(struct camera *cam, const struct camera_frame *f, uint64_t now)
{
	struct posted p = { f->width, f->height, f->t_ns, now, f->sequence, cam->opened };

	if (f->width != cam->vcfg.width || f->height != cam->vcfg.height)
		return;
	vision_catch_up(cam, &cam->vcfg, cam->remake_gen, cam->calib_gen);
	vision_run(cam, f->grey, f->width, f->height, f->t_ns, f->sequence);
	publish(cam, f->grey, &p);
}

static void take_result(struct camera *cam, uint64_t now);

/*
 * The source read at now: 1 a frame taken, 0 none, or a fault handled
 * (said, touches lifted, the state set). Live, the frame goes to the
 * thread; in a batch it is processed and put on the water at once.
 */
static int pull(struct camera *cam, uint64_t now)
{
	struct camera_frame f;
	int ret;

	if (!cam->src)
		return 0;
	ret = cam->src->ops->read(cam->src, now, &f);
	if (ret == 1) {
		count_frame(cam, now);
		if (cam->cfg.batch) {
			process_now(cam, &f, now);
			take_result(cam, now);
		} else {
			post(cam, &f, now);
		}
		return 1;
	}
	if (ret == -ENODEV)
		lost(cam, CAMERA_UNPLUGGED, now, "is gone (unplugged?)");
	else if (ret == -ENODATA)
		lost(cam, CAMERA_ENDED, now, "played to its end");
	else if (ret == -EBUSY)
		lost(cam, CAMERA_BUSY, now, "is busy: another program has it");
	return ret < 0 ? ret : 0;
}

/* ---- the loop's side ---- */

static enum camera_state state_of(enum vision_state v)
{
	switch (v) {
	case VISION_LEARNING:
		return CAMERA_STARTING;
	case VISION_RELEARNING:
		return CAMERA_RELEARNING;
	case VISION_FLOODED:
		return CAMERA_FLOODED;
	case VISION_RUNNING:
	default:
		return CAMERA_RUNNING;
	}
}

/* The vision's newest result onto the water, its state taken. */
static void take_result(struct camera *cam, uint64_t now)
{
	struct camera_result r;
	enum camera_state st;
	bool fresh;

	(void)now;
	pthread_mutex_lock(&cam->mu);
	fresh = cam->result.gen != cam->applied_gen;
	if (fresh)
		r = cam->result;
	pthread_mutex_unlock(&cam->mu);
	if (!fresh)
		return;
	cam->applied_gen = r.gen;
	/* A frame the vision had before the camera was lost, finished after:
	 * its touches went with the camera, and none lands until a camera is
	 * read again. */
	if (!cam->src)
		return;
	/* One read before the camera was opened again (unplugged and back, a
	 * stall's reopening), finished after: the old stream's tracks, whose
	 * touches were lifted with it. */
	if (r.opened != cam->opened) {
		cam->stale++;
		log_debug("camera: a result of a frame read before the camera was opened again "
			  "dropped (%" PRIu64 " so far)", cam->stale);
		return;
	}
	st = state_of(r.counts.state);
	if (st != cam->state && (st == CAMERA_FLOODED || st == CAMERA_RELEARNING))
		log_info("camera: %s", st == CAMERA_FLOODED
			 ? "flooded: motion everywhere; its blobs and touches capped"
			 : "the light changed at once: learning the floor again, no new "
			   "touches until then");
	set_state(cam, st);
	if (r.counts.sees_projection && !cam->said_projection) {
		cam->said_projection = true;
		log_warn("camera: %s sees the projection: its picture changes with the water "
			 "while nobody is on the floor (an IR-pass filter and IR lamps keep it "
			 "out)", cam->src->name);
	}
	if (cam->held)
		camera_touches_lift(cam);
	else
		camera_touches_apply(cam, &r);
}

void camera_hold_touches(struct camera *cam, bool hold)
{
	if (!cam || hold == cam->held)
		return;
	cam->held = hold;
	if (hold)
		camera_touches_lift(cam);
}

int camera_create(const struct camera_config *c, struct camera **out)
{
	struct camera *cam;
	char err[ERR_LEN];
	bool failed = false;
	struct stat st;
	int ret;

	*out = NULL;
	if (!c->device)
		return -EINVAL;
	cam = calloc(1, sizeof(*cam));
	if (!cam)
		return -ENOMEM;
	cam->cfg = *c;
	cam->efd = cam->epfd = -1;
	cam->device = dup_or_null(c->device, &failed);
	cam->masks_dir = dup_or_null(c->masks_dir, &failed);
	cam->record_dir = dup_or_null(c->record_dir, &failed);
	cam->cfg.device = cam->device;
	cam->cfg.masks_dir = cam->masks_dir;
	cam->cfg.record_dir = cam->record_dir;
	cam->is_folder = stat(c->device, &st) == 0 && S_ISDIR(st.st_mode);
	cam->stones = c->stones;
	cam->state = CAMERA_STARTING;
	pthread_mutex_init(&cam->mu, NULL);
	pthread_cond_init(&cam->cv, NULL);
	cam->box = malloc(FRAME_BYTES);
	cam->work = malloc(FRAME_BYTES);
	cam->view.grey = malloc(FRAME_BYTES);
	cam->view.fg = malloc(FRAME_BYTES);
	if (failed || !cam->box || !cam->work || !cam->view.grey || !cam->view.fg) {
		camera_destroy(cam);
		return -ENOMEM;
	}
	cam->vcfg = (struct vision_config){
		.width = 0, .height = 0, .fps = 30,
		.absorb_s = c->absorb_s, .min_size_mm = c->min_size_mm,
		.surface_mm_w = CAMERA_DEFAULT_MM, .surface_mm_h = CAMERA_DEFAULT_MM,
	};
	homography_identity(&cam->vcfg.to_surface);
	homography_identity(&cam->to_picture);
	if (c->n_points > 0 &&
	    (ret = camera_set_points(cam, c->n_points, c->camera_xy, c->surface_uv)) < 0) {
		log_error("camera: --camera-corners: the points make no calibration "
			  "(three in a line, or fewer than four)");
		camera_destroy(cam);
		return ret;
	}
	/* A folder that cannot be written is said, and the camera goes on. */
	if (c->masks_dir && camera_record_create(c->masks_dir, &cam->masks, err, sizeof(err)) < 0)
		log_warn("camera: --camera-masks: %s; no masks written", err);
	if (c->record_dir &&
	    camera_record_create(c->record_dir, &cam->record, err, sizeof(err)) < 0)
		log_warn("camera: --camera-record: %s; nothing recorded", err);
	if (!c->batch) {
		struct epoll_event ev = { .events = EPOLLIN };

		cam->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		cam->epfd = epoll_create1(EPOLL_CLOEXEC);
		if (cam->efd < 0 || cam->epfd < 0 ||
		    epoll_ctl(cam->epfd, EPOLL_CTL_ADD, cam->efd, &ev) < 0) {
			ret = -errno;
			camera_destroy(cam);
			return ret;
		}
	}
	ret = open_source(cam, clock_now_ns(), true);
	if (ret < 0) {
		camera_destroy(cam);
		return ret;
	}
	if (!c->batch) {
		ret = -pthread_create(&cam->thread, NULL, vision_thread, cam);
		if (ret < 0) {
			camera_destroy(cam);
			return ret;
		}
		cam->thread_up = true;
	}
	*out = cam;
	return 0;
}

void camera_destroy(struct camera *cam)
{
	if (!cam)
		return;
	if (cam->thread_up) {
		pthread_mutex_lock(&cam->mu);
		cam->quit = true;
		pthread_cond_signal(&cam->cv);
		pthread_mutex_unlock(&cam->mu);
		pthread_join(cam->thread, NULL);
	}
	camera_touches_lift(cam);
	close_source(cam);
	vision_destroy(cam->vision);
	camera_record_destroy(cam->masks);
	camera_record_destroy(cam->record);
	if (cam->efd >= 0)
		close(cam->efd);
	if (cam->epfd >= 0)
		close(cam->epfd);
	pthread_mutex_destroy(&cam->mu);
	pthread_cond_destroy(&cam->cv);
	free(cam->box);
	free(cam->work);
	free(cam->view.grey);
	free(cam->view.fg);
	free(cam->device);
	free(cam->masks_dir);
	free(cam->record_dir);
	free(cam);
}

int camera_get_fd(const struct camera *cam)
{
	return cam ? cam->epfd : -1;
}

int camera_wait(const struct camera *cam, uint64_t now_ns, uint64_t *wake)
{
	(void)now_ns;
	if (!cam)
		return -1;
	if (cam->src) {
		uint64_t due = cam->src->ops->next_due(cam->src);

		if (due)
			*wake = clock_earliest(*wake, due);
		if (streaming(cam) && !cam->cfg.batch)
			*wake = clock_earliest(*wake, cam->last_frame_ns + CAMERA_STALL_NS);
	}
	if (cam->retry_ns)
		*wake = clock_earliest(*wake, cam->retry_ns);
	return cam->epfd;
}

int camera_dispatch(struct camera *cam, uint64_t now_ns)
{
	struct epoll_event ev[2];
	eventfd_t n;

	if (!cam)
		return 0;
	/* Only to clear them: the results are looked at by camera_apply(). */
	if (cam->epfd >= 0)
		(void)epoll_wait(cam->epfd, ev, (int)ARRAY_SIZE(ev), 0);
	if (cam->efd >= 0)
		(void)eventfd_read(cam->efd, &n);
	if (cam->cfg.batch || !streaming(cam))
		return 0;
	return pull(cam, now_ns);
}

/* A fault's retry, a stall judged, a recording's frames paced by the clock. */
static void keep(struct camera *cam, uint64_t now)
{
	if (!cam->src && cam->retry_ns && now >= cam->retry_ns)
		(void)open_source(cam, now, false);
	if (!cam->src)
		return;
	if (streaming(cam) && !cam->cfg.batch && now >= cam->last_frame_ns + CAMERA_STALL_NS) {
		lost(cam, CAMERA_STALLED, now, "sent no frame for 2 s (stalled)");
		(void)open_source(cam, now, false);
		return;
	}
	if (!streaming(cam) && !cam->cfg.batch) {
		uint64_t due = cam->src->ops->next_due(cam->src);

		if (!due || now >= due)
			(void)pull(cam, now);
	}
}

void camera_apply(struct camera *cam, uint64_t now_ns)
{
	if (!cam)
		return;
	keep(cam, now_ns);
	if (cam->cfg.batch) {
		/* Every frame due by now, in order, each on the water in turn. */
		while (cam->src && pull(cam, now_ns) == 1)
			;
		return;
	}
	take_result(cam, now_ns);
}

void camera_uevent(struct camera *cam, const struct uevent *ev)
{
	if (!cam || !ev->subsystem || strcmp(ev->subsystem, "video4linux") != 0 || !ev->action)
		return;
	/* A camera plugged in: one that was waited for is looked for at once. */
	if (strcmp(ev->action, "add") == 0 && !cam->src && cam->retry_ns)
		cam->retry_ns = clock_now_ns();
}

void camera_set_target(struct camera *cam, struct gesture *g, int screen_w, int screen_h,
		       double mm_w, double mm_h)
{
	if (!cam)
		return;
	if (g != cam->g)
		cam->n_touches = 0;   /* another water: its slots are not the old one's */
	cam->g = g;
	cam->screen_w = screen_w;
	cam->screen_h = screen_h;
	if (mm_w > 0 && mm_h > 0 && (mm_w != cam->mm_w || mm_h != cam->mm_h)) {
		cam->mm_w = mm_w;
		cam->mm_h = mm_h;
		pthread_mutex_lock(&cam->mu);
		cam->vcfg.surface_mm_w = mm_w;
		cam->vcfg.surface_mm_h = mm_h;
		cam->remake_gen++;
		pthread_mutex_unlock(&cam->mu);
	}
}

void camera_set_stones(struct camera *cam, const struct input_stones *s)
{
	if (cam)
		cam->stones = *s;
}

void camera_set_vision(struct camera *cam, double absorb_s, double min_size_mm)
{
	if (!cam)
		return;
	pthread_mutex_lock(&cam->mu);
	if (cam->vcfg.absorb_s != absorb_s || cam->vcfg.min_size_mm != min_size_mm) {
		cam->vcfg.absorb_s = absorb_s;
		cam->vcfg.min_size_mm = min_size_mm;
		cam->remake_gen++;
	}
	pthread_mutex_unlock(&cam->mu);
}

int camera_set_points(struct camera *cam, int n, const double *camera_xy,
		      const double *surface_uv)
{
	struct homography h, back;
	int ret;

	if (n == 0) {
		homography_identity(&h);
		back = h;
	} else if (n < HOMOGRAPHY_CORNERS || n > CAMERA_POINTS_MAX) {
		return -EINVAL;
	} else if ((ret = homography_fit(camera_xy, surface_uv, n, &h)) < 0 ||
		   (ret = homography_fit(surface_uv, camera_xy, n, &back)) < 0) {
		return ret;
	}
	pthread_mutex_lock(&cam->mu);
	cam->vcfg.to_surface = h;
	cam->to_picture = back;
	cam->calib_gen++;
	pthread_mutex_unlock(&cam->mu);
	return 0;
}

int camera_take_touch_times(struct camera *cam, struct input_touch_time *out, int n)
{
	return cam ? input_touch_times_take(&cam->times, out, n) : 0;
}

void camera_get_counts(const struct camera *cam, struct camera_counts *out)
{
	struct camera *c = (struct camera *)cam;   /* its lock, not its state */
	struct camera_source_counts sc = { 0 };
	uint64_t newest, oldest;

	memset(out, 0, sizeof(*out));
	if (!cam) {
		out->state = CAMERA_OFF;
		return;
	}
	out->state = cam->state;
	if (cam->src)
		cam->src->ops->get_counts(cam->src, &sc);
	out->frames = cam->src_counts.frames + sc.frames;
	out->errors = cam->src_counts.errors + sc.errors;
	pthread_mutex_lock(&c->mu);
	out->dropped = cam->src_counts.dropped + sc.dropped + cam->dropped;
	out->relearns = cam->result.counts.relearns;
	out->floods = cam->result.counts.floods;
	/* What the last frame showed, while a camera is read: none without. */
	if (cam->src) {
		out->blobs = cam->result.counts.blobs;
		out->tracks = cam->result.counts.tracks;
		out->foreground = cam->result.counts.foreground;
	}
	pthread_mutex_unlock(&c->mu);
	/* Frames a second over the last CAMERA_FPS_WINDOW_NS of them read. */
	if (cam->fps_n > 1 && cam->src) {
		int last = (cam->fps_at + (int)ARRAY_SIZE(cam->fps_t) - 1) % (int)ARRAY_SIZE(cam->fps_t);
		int n = 1;

		newest = oldest = cam->fps_t[last];
		for (int i = 1; i < cam->fps_n; i++) {
			uint64_t t = cam->fps_t[(last + (int)ARRAY_SIZE(cam->fps_t) - i) %
						(int)ARRAY_SIZE(cam->fps_t)];

			if (newest - t > CAMERA_FPS_WINDOW_NS)
				break;
			oldest = t;
			n++;
		}
		if (newest > oldest)
			out->fps = (double)(n - 1) * 1e9 / (double)(newest - oldest);
	}
	snprintf(out->source, sizeof(out->source), "%s", cam->src ? cam->src->name : cam->device);
}
