/*
 * The water heard on a card: a thread of its own makes the sound (synth.c)
 * a chunk at a time and keeps the card fed, taking back what waits in its
 * buffer when a stone lands; the frame loop hands it splashes under a lock.
 * The card itself, found and unmuted, is alsa-card.c's.
 */
#include "config.h"

#include <alsa/asoundlib.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/util.h"
#include "settings/options.h"
#include "sound/alsa-card.h"
#include "sound/sound.h"
#include "sound/synth.h"
#include "water/splashes.h"

/* Stereo, the same on both sides: every card plays it (plughw converts). */
#define SOUND_CHANNELS 2
/* Samples made at a time: what the thread writes each time it wakes. */
#define SOUND_CHUNK 240
/*
 * The card's buffer is kept full, a margin against a late wake-up; a stone
 * that lands takes back what waits in it but the last SOUND_SAFE_US (what
 * the card may have fetched already: QEMU's HDA takes 10 ms at a time) and
 * makes it again with the stone in it: heard within about that. The last
 * SOUND_HISTORY chunks are kept for it: the synth before each and what it
 * heard first.
 */
#define SOUND_SAFE_US 10000
#define US_PER_S 1000000
#define SOUND_SAFE_FRAMES ((snd_pcm_sframes_t)SOUND_RATE * SOUND_SAFE_US / US_PER_S)
#define SOUND_HISTORY 8
/* The card is written without blocking: the thread sleeps until it has
 * room for a chunk, or a stone comes. At least this long; a full card is
 * waited for at most SOUND_FULL_WAIT_MS at a time. */
#define SOUND_MIN_SLEEP_NS 1000000ull
#define SOUND_FULL_WAIT_MS 100
/*
 * A device that always has room and never blocks (the null device, a
 * broken driver) would have the thread make sound as fast as the CPU goes:
 * the writes are paced by the clock too. What was written never ends more
 * than the card's buffer ahead of the clock, each chunk counted as if
 * played SOUND_PACE_PERCENT as fast: a margin a real card (its clock a
 * little fast) never uses up, so its own room is what paces it.
 */
#define SOUND_CHUNK_NS ((uint64_t)SOUND_CHUNK * NSEC_PER_SEC / SOUND_RATE)
#define SOUND_PACE_PERCENT 125
#define SOUND_CHUNK_PACED_NS (SOUND_CHUNK_NS * 100 / SOUND_PACE_PERCENT)
#define NSEC_PER_USEC 1000ull
/* ... and given up for gone after this many waits without room, or this
 * long without room while the thread sleeps. */
#define SOUND_STALLS 10
#define SOUND_STALL_NS NSEC_PER_SEC
/* Silent this long, the card stops (not between the drops of a few
 * taps); the thread looks this often all the same. */
#define SOUND_PAUSE_NS (5 * NSEC_PER_SEC)
#define SOUND_SILENT_LOOK_NS NSEC_PER_SEC
/* Splashes waiting for the thread; more in one chunk are not heard apart. */
#define SOUND_QUEUE 64
/* Without a card, one is looked for this often. */
#define SOUND_RETRY_NS (2 * NSEC_PER_SEC)
#define DEVICE_LEN 128
#define VOLUME_MAX 100
#define S16_FULL 32767.0f

/* What the thread and the frame loop share, under lock. */
struct shared {
	char device[DEVICE_LEN];   /* "" auto; SOUND_OFF none */
	bool reopen;               /* another device asked for */
	int volume;
	bool hushed;
	bool has_quiet;
	int quiet_from, quiet_to;  /* minutes after midnight */
	struct splash queue[SOUND_QUEUE];
	int queued;
	bool quit;
	/* counted by the thread for the stats line */
	uint64_t drops, underruns;
	bool playing;
};

/* A chunk made: the synth before it, and what it heard first. */
struct take {
	struct synth *before;
	struct splash heard[SOUND_QUEUE];
	int n;
};

struct sound {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool started;
	struct shared sh;

	/* the thread's own */
	snd_pcm_t *pcm;
	char opened[DEVICE_LEN];
	struct synth *synth;
	uint64_t retry_ns;
	bool said_none;            /* "no sound card" said since the last card */
	double gain;               /* the volume as a factor, followed smoothly */
	struct take history[SOUND_HISTORY];
	int written;               /* chunks since the card (re)started */
	bool paused;               /* silent: the card stopped */
	uint64_t stall_ns;         /* since when it has had no room; 0: it has */
	uint64_t silent_ns;        /* since when nothing sounds; 0: something does */
	uint64_t paced_ns;         /* the clock's pace: where the chunks written end */
	uint64_t ahead_ns;         /* how far paced_ns may be ahead: the card's buffer */
	float mono[SOUND_CHUNK];
	int16_t frames[SOUND_CHUNK * SOUND_CHANNELS];
};

/* --volume 0..100 as a factor: its square, so the steps sound even. */
static double volume_gain(int volume)
{
	double v = (double)volume / VOLUME_MAX;

	return v * v;
}

static void take_options(struct shared *sh, const struct options *o)
{
	const char *dev = o->sound_device ? o->sound_device : "";

	if (strcmp(dev, sh->device) != 0) {
		snprintf(sh->device, sizeof(sh->device), "%s", dev);
		sh->reopen = true;
	}
	sh->volume = o->volume;
	sh->has_quiet = o->has_quiet_hours;
	sh->quiet_from = o->quiet_from_min;
	sh->quiet_to = o->quiet_to_min;
}

static bool quiet_now(const struct shared *sh)
{
	return sh->has_quiet && clock_within_hours(time(NULL), sh->quiet_from, sh->quiet_to, false);
}

/* ---- the card ---- */

/* The card starts playing with SOUND_SAFE_US in it: at open and after a
 * pause, the first drop is not held back until the buffer is full, nor
 * left to run dry at once. */
static int start_at_once(snd_pcm_t *pcm)
{
	snd_pcm_sw_params_t *sw;
	int ret;

	snd_pcm_sw_params_alloca(&sw);
	ret = snd_pcm_sw_params_current(pcm, sw);
	if (ret == 0)
		ret = snd_pcm_sw_params_set_start_threshold(pcm, sw,
							    (snd_pcm_uframes_t)SOUND_SAFE_FRAMES);
	if (ret == 0)
		ret = snd_pcm_sw_params(pcm, sw);
	return ret;
}

static void close_pcm(struct sound *s)
{
	if (s->pcm)
		snd_pcm_close(s->pcm);
	s->pcm = NULL;
}

/* The device asked for, opened for about SOUND_BUFFER_US of sound. */
static void open_pcm(struct sound *s, const char *asked)
{
	snd_pcm_uframes_t buffer, period;
	char name[DEVICE_LEN];
	snd_pcm_info_t *info;
	int ret;

	if (asked[0])
		snprintf(name, sizeof(name), "%s", asked);
	else if (alsa_auto_device(name, sizeof(name)) < 0) {
		if (!s->said_none)
			log_info("no sound card: the water goes on silently (one that comes later "
				 "is taken)");
		s->said_none = true;
		return;
	}
	ret = snd_pcm_open(&s->pcm, name, SND_PCM_STREAM_PLAYBACK, 0);
	if (ret == 0)
		ret = snd_pcm_set_params(s->pcm, SND_PCM_FORMAT_S16, SND_PCM_ACCESS_RW_INTERLEAVED,
					 SOUND_CHANNELS, SOUND_RATE, 1, SOUND_BUFFER_US);
	if (ret == 0)
		ret = snd_pcm_nonblock(s->pcm, 1);
	if (ret == 0)
		ret = start_at_once(s->pcm);

	if (ret < 0) {
		if (!s->said_none)
			log_warn("sound device '%s': %s; the water goes on silently (tried again "
				 "every few seconds)", name, snd_strerror(ret));
		s->said_none = true;
		close_pcm(s);
		return;
	}
	snd_pcm_info_alloca(&info);
	if (snd_pcm_info(s->pcm, info) == 0 && snd_pcm_info_get_card(info) >= 0)
		alsa_unmute_card(snd_pcm_info_get_card(info));
	snprintf(s->opened, sizeof(s->opened), "%s", name);
	s->said_none = false;
	s->written = 0;
	s->stall_ns = 0;
	if (snd_pcm_get_params(s->pcm, &buffer, &period) == 0 && buffer > 0)
		s->ahead_ns = (uint64_t)buffer * NSEC_PER_SEC / SOUND_RATE;
	else
		s->ahead_ns = SOUND_BUFFER_US * NSEC_PER_USEC;
	log_info("sound on '%s'", name);
	log_debug("sound: the card starts again at %.4f s", (double)clock_now_ns() / NSEC_PER_SEC);
}

/* ---- the thread ---- */

static void hear(struct sound *s, const struct splash *sp, int n)
{
	for (int i = 0; i < n; i++) {
		switch (sp[i].kind) {
		case SPLASH_STONE:
			synth_stone(s->synth, sp[i].radius_mm, sp[i].weight_mm);
			break;
		case SPLASH_RAIN:
			synth_rain(s->synth, sp[i].radius_mm, sp[i].weight_mm);
			break;
		case SPLASH_DRAG:
			synth_drag(s->synth, sp[i].speed_mm_s);
			break;
		}
	}
}

/* For the tests' look at latency: when the last stone of sp (the newest)
 * will leave the card (the sound queued ahead of it), on the monotonic
 * clock. */
static void say_when_heard(struct sound *s, const struct splash *sp, int n)
{
	snd_pcm_sframes_t ahead = 0;
	uint64_t now = clock_now_ns();
	double heard;

	for (int i = n - 1; i >= 0; i--) {
		if (sp[i].kind != SPLASH_STONE)
			continue;
		if (snd_pcm_delay(s->pcm, &ahead) < 0 || ahead < 0)
			ahead = 0;
		heard = (double)now / NSEC_PER_SEC + (double)ahead / SOUND_RATE;
		log_debug("sound: a stone heard at %.4f s, %.1f ms after it landed", heard,
			  (heard - (double)sp[i].t_ns / NSEC_PER_SEC) * 1e3);
		return;
	}
}

/* After err from the card: true when it plays on (an underrun starts again
 * from silence, never replaying what the buffer held: no loop is heard);
 * false, said once, when it went away. */
static bool recover(struct sound *s, int err)
{
	if ((err == -EPIPE || err == -ESTRPIPE || err == -EINTR) &&
	    snd_pcm_recover(s->pcm, err, 1) == 0) {
		/* Nothing waits in the card to take back. */
		if (err != -EINTR)
			s->written = 0;
		if (err == -EPIPE) {
			pthread_mutex_lock(&s->lock);
			s->sh.underruns++;
			pthread_mutex_unlock(&s->lock);
			log_debug("sound: underrun at %.4f s, recovered",
				  (double)clock_now_ns() / NSEC_PER_SEC);
		}
		return true;
	}
	log_warn("sound device '%s' gone: %s; the water goes on silently (taken again when it "
		 "comes back)", s->opened, snd_strerror(err));
	s->said_none = true;
	return false;
}

/* A chunk of sound into the card; false when the card went away. */
static bool write_chunk(struct sound *s, double gain)
{
	snd_pcm_sframes_t done = 0;
	double step = (gain - s->gain) / SOUND_CHUNK;
	int stalls = 0;

	synth_render(s->synth, s->mono, SOUND_CHUNK);
	for (int i = 0; i < SOUND_CHUNK; i++) {
		int16_t v;

		/* A new volume glides in over the chunk: no click. */
		s->gain += step;
		v = (int16_t)lrintf(s->mono[i] * (float)s->gain * S16_FULL);
		for (int c = 0; c < SOUND_CHANNELS; c++)
			s->frames[i * SOUND_CHANNELS + c] = v;
	}
	s->gain = gain;
	while (done < SOUND_CHUNK) {
		snd_pcm_sframes_t n = snd_pcm_writei(s->pcm, s->frames + done * SOUND_CHANNELS,
						     (snd_pcm_uframes_t)(SOUND_CHUNK - done));

		if (n >= 0) {
			done += n;
			continue;
		}
		if (n != -EAGAIN) {
			if (!recover(s, (int)n))
				return false;
			continue;
		}
		/* The card is full (a stone took back less than it made
		 * again): its room comes at its own pace, or the card is
		 * gone, or it stopped taking anything. */
		n = snd_pcm_wait(s->pcm, SOUND_FULL_WAIT_MS);
		if (n < 0 && !recover(s, (int)n))
			return false;
		if (n == 0 && ++stalls >= SOUND_STALLS) {
			log_warn("sound device '%s' takes nothing for %d ms; the water goes on "
				 "silently (tried again every few seconds)", s->opened,
				 SOUND_STALLS * SOUND_FULL_WAIT_MS);
			s->said_none = true;
			return false;
		}
	}
	return true;
}

/* The next chunk: made from the synth after it heard ev (or hushed), into
 * the card; false when the card went away. fresh: ev has splashes not
 * heard before (the log says when they are). */
static bool make_chunk(struct sound *s, const struct splash *ev, int n, bool hushed, bool fresh,
		       double gain)
{
	struct take *tk = &s->history[s->written % SOUND_HISTORY];
	uint64_t now;

	synth_copy(tk->before, s->synth);
	tk->n = n;
	memcpy(tk->heard, ev, (size_t)n * sizeof(*ev));
	if (hushed) {
		synth_hush(s->synth);
	} else {
		hear(s, ev, n);
		if (fresh && log_debug_enabled())
			say_when_heard(s, ev, n);
	}
	if (!write_chunk(s, gain))
		return false;
	s->written++;
	/* Behind the clock (the first chunk, after a pause or an
	 * underrun; a real card's chunks, counted short, always): the
	 * pace goes on from now. */
	now = clock_now_ns();
	s->paced_ns = (s->paced_ns > now ? s->paced_ns : now) + SOUND_CHUNK_PACED_NS;
	return true;
}

static bool has_stone(const struct splash *ev, int n)
{
	for (int i = 0; i < n; i++)
		if (ev[i].kind == SPLASH_STONE)
			return true;
	return false;
}

/* What waits in the card but its last SOUND_SAFE_FRAMES, taken back: the
 * synth as it was before, and how many chunks to make again. */
static int take_back(struct sound *s)
{
	snd_pcm_sframes_t can = snd_pcm_rewindable(s->pcm), got;
	uint64_t back_ns;
	int k;

	if (can <= SOUND_SAFE_FRAMES)
		return 0;
	k = (int)((can - SOUND_SAFE_FRAMES) / SOUND_CHUNK);
	k = k < s->written ? k : s->written;
	k = k < SOUND_HISTORY ? k : SOUND_HISTORY;
	if (k <= 0)
		return 0;
	got = snd_pcm_rewind(s->pcm, (snd_pcm_uframes_t)k * SOUND_CHUNK);
	if (got != (snd_pcm_sframes_t)k * SOUND_CHUNK) {
		/* Not all of it: play on as written. */
		if (got > 0)
			snd_pcm_forward(s->pcm, (snd_pcm_uframes_t)got);
		return 0;
	}
	s->written -= k;
	/* Taken back, it is no longer ahead of the clock. */
	back_ns = (uint64_t)k * SOUND_CHUNK_PACED_NS;
	s->paced_ns = s->paced_ns > back_ns ? s->paced_ns - back_ns : 0;
	synth_copy(s->synth, s->history[s->written % SOUND_HISTORY].before);
	return k;
}

/*
 * The splashes into the next chunk; a stone into the earliest the card
 * has not fetched yet, the chunks after it made again with what they
 * heard before (the same seed draws: the same rain). False when the card
 * went away.
 */
static bool play(struct sound *s, const struct splash *got, int n, bool hushed, double gain)
{
	int redo = !hushed && has_stone(got, n) ? take_back(s) : 0;

	for (int i = 0; i < redo; i++) {
		const struct take *tk = &s->history[s->written % SOUND_HISTORY];
		struct splash ev[SOUND_QUEUE];
		int m = tk->n;

		memcpy(ev, tk->heard, (size_t)m * sizeof(ev[0]));
		for (int j = 0; i == 0 && j < n && m < SOUND_QUEUE; j++)
			ev[m++] = got[j];
		/* Woken by this stone: what was hushed before it is not now. */
		if (!make_chunk(s, ev, m, false, i == 0, gain))
			return false;
	}
	return make_chunk(s, got, redo ? 0 : n, hushed, redo == 0, gain);
}

/* Under the lock: sleeps until the monotonic time until_ns, or until woken
 * (a stone, a reload, the end). */
static void sleep_until(struct sound *s, uint64_t until_ns)
{
	struct timespec until = clock_timespec(until_ns);

	pthread_cond_timedwait(&s->wake, &s->lock, &until);
}

/* Under the lock: true when the card has room for a chunk now, and the
 * clock's pace allows it; else it sleeps until it will (or a stone comes,
 * or the card went away). */
static bool room_for_chunk(struct sound *s)
{
	snd_pcm_sframes_t avail = snd_pcm_avail_update(s->pcm);
	uint64_t now = clock_now_ns(), sleep_ns;
	bool ok;

	if (avail >= SOUND_CHUNK) {
		s->stall_ns = 0;
		if (s->paced_ns <= now + s->ahead_ns)
			return true;
		sleep_until(s, s->paced_ns - s->ahead_ns);
		return false;
	}
	/* A card unplugged may still say it is full: its state says it is
	 * gone; one that takes nothing for long is taken for gone too. */
	if (avail >= 0 && snd_pcm_state(s->pcm) == SND_PCM_STATE_DISCONNECTED)
		avail = -ENODEV;
	if (avail >= 0 && s->stall_ns == 0)
		s->stall_ns = now;
	if (avail >= 0 && now - s->stall_ns > SOUND_STALL_NS) {
		log_warn("sound device '%s' takes nothing for %llu ms; the water goes on silently "
			 "(tried again every few seconds)", s->opened,
			 (unsigned long long)(SOUND_STALL_NS / (NSEC_PER_SEC / 1000)));
		s->said_none = true;
		close_pcm(s);
		return false;
	}
	if (avail < 0) {
		pthread_mutex_unlock(&s->lock);
		ok = recover(s, (int)avail);
		pthread_mutex_lock(&s->lock);
		if (!ok)
			close_pcm(s);
		return false;
	}
	sleep_ns = (uint64_t)(SOUND_CHUNK - avail) * NSEC_PER_SEC / SOUND_RATE;
	sleep_ns = sleep_ns > SOUND_MIN_SLEEP_NS ? sleep_ns : SOUND_MIN_SLEEP_NS;
	sleep_until(s, now + sleep_ns);
	return false;
}

/* A splash that makes a sound (a finger resting makes none). */
static bool audible(const struct splash *ev, int n)
{
	for (int i = 0; i < n; i++)
		if (ev[i].kind != SPLASH_DRAG || ev[i].speed_mm_s > 0)
			return true;
	return false;
}

/* Under the lock, when nothing sounds and nothing comes to be heard: the
 * card stops and the thread sleeps (still water, or an exhibit asleep,
 * takes no CPU) until a splash comes; what was not heard is dropped. */
static void pause_silent(struct sound *s)
{
	if (!s->paused) {
		snd_pcm_drop(s->pcm);
		s->paused = true;
		s->written = 0;
	}
	s->sh.queued = 0;
	sleep_until(s, clock_now_ns() + SOUND_SILENT_LOOK_NS);
}

static void *sound_thread(void *data)
{
	struct sound *s = data;
	struct splash got[SOUND_QUEUE];

	pthread_mutex_lock(&s->lock);
	while (!s->sh.quit) {
		char device[DEVICE_LEN];
		bool hushed;
		double gain;
		int n;

		if (s->sh.reopen || strcmp(s->sh.device, SOUND_OFF) == 0) {
			s->sh.reopen = false;
			close_pcm(s);
			s->said_none = false;
			s->retry_ns = 0;
		}
		if (!s->pcm && strcmp(s->sh.device, SOUND_OFF) != 0 &&
		    clock_now_ns() >= s->retry_ns) {
			snprintf(device, sizeof(device), "%s", s->sh.device);
			pthread_mutex_unlock(&s->lock);
			open_pcm(s, device);
			pthread_mutex_lock(&s->lock);
			s->paused = false;
			s->silent_ns = 0;
			s->retry_ns = clock_now_ns() + SOUND_RETRY_NS;
			continue;
		}
		s->sh.playing = s->pcm != NULL;
		if (!s->pcm) {
			/* Splashes nobody can hear are dropped. */
			s->sh.queued = 0;
			sleep_until(s, clock_now_ns() + SOUND_RETRY_NS);
			continue;
		}
		hushed = s->sh.hushed || quiet_now(&s->sh);
		/* Hushed, only the touch that wakes the exhibit is heard. */
		if (synth_silent(s->synth) &&
		    !(hushed ? has_stone : audible)(s->sh.queue, s->sh.queued)) {
			if (s->silent_ns == 0)
				s->silent_ns = clock_now_ns();
			if (s->paused || clock_now_ns() - s->silent_ns >= SOUND_PAUSE_NS) {
				pause_silent(s);
				continue;
			}
		} else {
			s->silent_ns = 0;
		}
		if (s->paused) {
			s->paused = false;
			snd_pcm_prepare(s->pcm);
			/* For the tests: the card's own buffering settles after
			 * a start (an emulated one's, unseen by snd_pcm_delay). */
			log_debug("sound: the card starts again at %.4f s",
				  (double)clock_now_ns() / NSEC_PER_SEC);
		}
		if (!has_stone(s->sh.queue, s->sh.queued) && !room_for_chunk(s))
			continue;
		n = s->sh.queued;
		memcpy(got, s->sh.queue, (size_t)n * sizeof(got[0]));
		s->sh.queued = 0;
		gain = volume_gain(s->sh.volume);
		pthread_mutex_unlock(&s->lock);

		if (!play(s, got, n, hushed, gain))
			close_pcm(s);
		pthread_mutex_lock(&s->lock);
		if (!hushed)
			for (int i = 0; i < n; i++)
				s->sh.drops += got[i].kind != SPLASH_DRAG;
	}
	pthread_mutex_unlock(&s->lock);
	close_pcm(s);
	return NULL;
}

int sound_create(const struct options *o, struct sound **out)
{
	pthread_condattr_t attr;
	struct sound *s;
	int ret;

	*out = NULL;
	alsa_messages_to_log();
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &attr);
	pthread_condattr_destroy(&attr);
	take_options(&s->sh, o);
	s->sh.reopen = false;
	s->gain = volume_gain(o->volume);
	s->synth = synth_create(SOUND_RATE, o->seed);
	for (int i = 0; i < SOUND_HISTORY; i++)
		s->history[i].before = synth_create(SOUND_RATE, o->seed);
	for (int i = 0; i < SOUND_HISTORY; i++) {
		if (!s->synth || !s->history[i].before) {
			sound_destroy(s);
			return -ENOMEM;
		}
	}
	if (strcmp(s->sh.device, SOUND_OFF) == 0)
		log_info("sound off (--sound off)");
	ret = pthread_create(&s->thread, NULL, sound_thread, s);
	if (ret != 0) {
		log_error("cannot start the sound's thread: %s", strerror(ret));
		sound_destroy(s);
		return -ret;
	}
	s->started = true;
	*out = s;
	return 0;
}

void sound_destroy(struct sound *s)
{
	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->lock);
		s->sh.quit = true;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	close_pcm(s);
	synth_destroy(s->synth);
	for (int i = 0; i < SOUND_HISTORY; i++)
		synth_destroy(s->history[i].before);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

void sound_configure(struct sound *s, const struct options *o)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	take_options(&s->sh, o);
	pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
}

void sound_play(struct sound *s, const struct splash *splashes, int n, bool hushed)
{
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->sh.hushed = hushed;
	for (int i = 0; i < n && s->sh.queued < SOUND_QUEUE; i++)
		s->sh.queue[s->sh.queued++] = splashes[i];
	/* A stone is heard at once; the rest waits for the next chunk, or
	 * starts the card again. */
	if (has_stone(splashes, n) || (s->paused && audible(splashes, n)))
		pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
}

void sound_take_stats(struct sound *s, char *buf, size_t len)
{
	if (!s) {
		snprintf(buf, len, "%s", "");
		return;
	}
	pthread_mutex_lock(&s->lock);
	if (s->sh.playing)
		snprintf(buf, len, ", sound: %llu drops, %llu underruns",
			 (unsigned long long)s->sh.drops, (unsigned long long)s->sh.underruns);
	else
		snprintf(buf, len, ", sound: none");
	s->sh.drops = 0;
	s->sh.underruns = 0;
	pthread_mutex_unlock(&s->lock);
}
