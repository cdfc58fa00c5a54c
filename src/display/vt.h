/*
 * The virtual terminal the kiosk runs on: KD_GRAPHICS so console text can't
 * draw over the water, and VT_PROCESS switching so a VT switch gives the
 * display away (drop DRM master) and switching back takes it again.
 * Off a VT (serial console, ssh, a test) every function does nothing.
 */
#ifndef VT_H
#define VT_H

#include <stdbool.h>

struct vt;

struct vt_handler {
	/* Switching away: stop presenting and drop DRM master. */
	void (*release)(void *data);
	/* Switched back: take master, full modeset and redraw. 0 or -errno. */
	int (*acquire)(void *data);
	void *data;
};

/*
 * Take over the VT on standard input. Returns 0 with *out == NULL when
 * standard input is not a VT, 0 with *out set, or a negative errno.
 * Blocks the two switch signals (they are read through vt_get_fd()): call it
 * before any thread is created.
 */
int vt_setup(const struct vt_handler *handler, struct vt **out);
/* KD_TEXT, VT_AUTO, close. Accepts NULL. */
void vt_restore(struct vt *vt);

/*
 * The VT at path given back to the text console, whoever left it in
 * graphics (a kiosk that crashed): KD_TEXT, VT_AUTO and the screen and its
 * scrollback cleared. 0 or a negative errno (-ENOTTY: not a VT), said in
 * one line. The unit's ExecStopPost (--give-back-console).
 */
int vt_give_back(const char *path);

/* A signalfd, readable when a switch is requested; -1 for NULL. */
int vt_get_fd(const struct vt *vt);
/* Handle the pending switch requests. 0 or the acquire handler's error. */
int vt_dispatch(struct vt *vt);
/* Whether the VT is in the foreground (true for NULL: no VT, always ours). */
bool vt_active(const struct vt *vt);

#endif
