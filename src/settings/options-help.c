#include "config.h"

#include <stdio.h>

#include "settings/options.h"
#include "water/render.h"
#include "water/ripple.h"
#include "water/workers.h"

/* A default that is a plain number, spelt into the text. */
#define STR_(x) #x
#define STR(x) STR_(x)

/* --help: every option with its unit, range and default. A new option
 * gets its line here and in doc/ripple-kiosk.1 (tests/man.sh checks). */
void options_print_help(FILE *f)
{
	fprintf(f,
"Usage: ripple-kiosk [OPTION]...\n"
"Turn the screen into touchable water: a picture under moving water, a stone\n"
"where a finger lands, a wake where it drags, and rain when nobody is around.\n"
"\n"
"Output:\n"
"  --backend auto|drm|headless  where frames go (default auto: the display when\n"
"                          there is one, else the headless demo)\n"
"  --device PATH           DRM device (default: the first with KMS and dumb buffers)\n"
"  --connector NAME        show on this connector only, e.g. HDMI-A-1 (default: all)\n"
"  --mode WxH[@Hz]         display mode (default: preferred, else largest)\n"
"  --rotate auto|0|90|180|270  turn the picture (and touch) clockwise for a rotated\n"
"                          screen (default auto: as the panel's orientation says, else 0)\n"
"  --flip-timeout MS       a page flip not done by then is fatal (default %d, 1..%d)\n"
"\n"
"Headless (PNG frames):\n"
"  --size WxH              frame size (default %dx%d)\n"
"  --frames N              frames to make (default %d)\n"
"  --every N               write every Nth frame (default 1)\n"
"  --output DIR            where frame-NNNNN.png go (default %s)\n"
"  --output-heights        and the water's heights beside each, heights-NNNNN.pgm\n"
"                          (16 bits a cell, height + 32768)\n"
"  --refresh HZ            frames per second of the virtual display (default %d)\n"
"  --format xrgb8888|rgb565  pixel format rendered (default xrgb8888)\n"
"\n"
"Picture:\n"
"  --background FILE[:FILE|DIR]...  PNG, JPEG or PPM under the water (default:\n"
"                          built-in pool); several, or a directory's, take turns\n"
"  --fit cover|contain|stretch  how the picture fills the screen (default cover)\n"
"  --picture-seconds N     with several: each stands N s, 0 the first stays (default %d)\n"
"  --crossfade SECONDS     then fades into the next over this (default %g, 0..%g)\n"
"  --drift PIXELS          burn-in care (OLED, plasma): the picture wanders this far,\n"
"                          a pixel every few minutes (default 0: off, 0..%d)\n"
"  --obstacles FILE        image whose dark parts are solid walls in the water\n"
"  --strict                a bad picture is fatal instead of replaced\n"
"  --light PERCENT         a lamp's mirror image in the water, in %% of white: the\n"
"                          slopes catch it; 0 off (default %d, 0..%d)\n"
"  --light-from AZ:EL      where the lamp is: degrees clockwise from the screen's\n"
"                          top edge, and above the panel (default %g:%g)\n"
"\n"
"The water, in millimetres and seconds on the screen:\n"
"  --screen-mm WxH         the screen's size in mm (default: the connector's, else\n"
"                          a 24-inch screen)\n"
"  --wave-speed CM_S       how fast ripples spread, cm per second (default %g)\n"
"  --fade SECONDS          damping leaves a tenth of a wave after this; water's\n"
"                          viscosity takes short ripples sooner (default %g)\n"
"  --depth MM              how deep the picture lies: deeper bends it more (default %g)\n"
"  --stone-radius MM       radius of a fingertip's stone (default %g)\n"
"  --stone-weight MM       how deep a fingertip pushes the water (default %g)\n"
"  --rain N                raindrops per minute per square metre, 0 none (default %d)\n"
"  --rain-drop MM          raindrops' radius, from half this to this (default %g)\n"
"  --seed N                seed of the rain (default %d)\n"
"  --touch-script FILE     scripted fingers: lines 'FRAME down|move|up FINGER [X Y]'\n"
"\n"
"The same in the seeds' units, each 'auto' (the default) or forced:\n"
"  --sim-scale auto|N      simulate the water at 1/N size, render full size (1..%d)\n"
"  --steps-per-second auto|N  water steps per second, whatever the refresh (1..%d)\n"
"  --damping auto|N        waves lose 1/2^N per step (%d..%d; the seeds used 5)\n"
"  --refraction auto|N     picture offset is the height difference >> N (%d..%d)\n"
"\n"
"Touch (touchscreens, absolute pointers, a mouse with its button held):\n"
"  --touch-device PATH|NAME  use only this input device (default: every one found)\n"
"  --touch-output NAME     the connector the touchscreen is on (default: the first)\n"
"  --touch-invert-x        mirror the touch x axis\n"
"  --touch-invert-y        mirror the touch y axis\n"
"  --calibration \"a b c d e f\"  libinput calibration matrix on the 0..1 range\n"
"                          (default: the device's LIBINPUT_CALIBRATION_MATRIX, if any)\n"
"  --touch-radius MIN:MAX  stone radius in mm from a fingertip to a flat hand, where\n"
"                          the device reports contact size (default stone-radius x1:x%g)\n"
"  --touch-weight MIN:MAX  stone weight in mm from the lightest to the firmest press,\n"
"                          where the device reports pressure (default stone-weight /%g:x%g)\n"
"  --stuck-touch SECONDS   a contact that has not moved for this long is stuck, not a\n"
"                          visitor, until it lifts (default "
				STR(OPTIONS_DEFAULT_STUCK_TOUCH_S) ", 0 never)\n"
"  --grab                  take the input devices for this program alone (EVIOCGRAB)\n"
"\n"
"The exhibit:\n"
"  --config FILE           settings file (default %s if it exists)\n"
"  --attract SECONDS       after this long without a touch it rains (default %d, 0 never)\n"
"  --attract-rain N        raindrops per minute per square metre then (default %d)\n"
"  --opening-hours HH:MM-HH:MM  outside them the screen goes dark when idle, a touch\n"
"                          wakes it (default: always open)\n"
"  --sleep-after SECONDS   after this long without a touch the screens are switched\n"
"                          off (DPMS, backlight) until a touch (default 0, never)\n"
"  --sound auto|off|DEVICE the card the water is heard on: auto takes the ALSA default\n"
"                          where /etc/asound.conf sets one, else the first card that\n"
"                          plays; or an ALSA device (plughw:1,0) (default auto)\n"
"  --volume 0..100         how loud (default " STR(OPTIONS_DEFAULT_VOLUME) ")\n"
"  --quiet-hours HH:MM-HH:MM  silent then, the water goes on (default none); silent\n"
"                          too while the screens sleep and outside opening hours\n"
"  --stats-interval SECONDS  a stats line this often (default %d, 0 never)\n"
"  --state-dir DIR         where SIGUSR1 writes a PNG of the screen (default\n"
"                          $STATE_DIRECTORY, else %s)\n"
"  --usage-days N          usage.csv there keeps N days of hourly rows, and touches.png\n"
"                          shows where fingers landed (default "
				STR(OPTIONS_DEFAULT_USAGE_DAYS) ", 0 none)\n"
"\n"
"Speed:\n"
"  --threads N             threads for step and render (default: online CPUs, 1..%d)\n"
"  (RIPPLE_SIMD=scalar|sse2|avx2|neon in the environment forces an instruction set)\n"
"\n"
"  -v, --verbose           more messages\n"
"  -h, --help              this text\n"
"  -V, --version           the version\n"
"\n"
"Every on/off option (--strict, --grab, --touch-invert-x, --touch-invert-y,\n"
"--output-heights, --verbose) has a --no- form that turns it off: --no-grab undoes the config file.\n",
		OPTIONS_DEFAULT_FLIP_TIMEOUT_MS, OPTIONS_MAX_FLIP_TIMEOUT_MS,
		OPTIONS_DEFAULT_WIDTH, OPTIONS_DEFAULT_HEIGHT, OPTIONS_DEFAULT_FRAMES,
		OPTIONS_DEFAULT_OUTPUT, OPTIONS_DEFAULT_REFRESH_HZ,
		OPTIONS_DEFAULT_PICTURE_SECONDS, OPTIONS_DEFAULT_CROSSFADE_S, OPTIONS_MAX_CROSSFADE_S,
		OPTIONS_MAX_DRIFT, OPTIONS_DEFAULT_LIGHT_PERCENT, OPTIONS_MAX_LIGHT_PERCENT,
		OPTIONS_DEFAULT_LIGHT_AZIMUTH, OPTIONS_DEFAULT_LIGHT_ELEVATION,
		OPTIONS_DEFAULT_WAVE_SPEED_CM_S, OPTIONS_DEFAULT_FADE_S, OPTIONS_DEFAULT_DEPTH_MM,
		OPTIONS_DEFAULT_STONE_RADIUS_MM, OPTIONS_DEFAULT_STONE_WEIGHT_MM,
		OPTIONS_DEFAULT_RAIN, OPTIONS_DEFAULT_RAIN_DROP_MM, OPTIONS_DEFAULT_SEED,
		OPTIONS_MAX_SIM_SCALE, OPTIONS_MAX_STEPS_PER_SECOND,
		RIPPLE_DAMPING_MIN, RIPPLE_DAMPING_MAX, RENDER_SHIFT_MIN, RENDER_SHIFT_MAX,
		OPTIONS_TOUCH_RADIUS_SPREAD, OPTIONS_TOUCH_WEIGHT_SPREAD, OPTIONS_TOUCH_WEIGHT_SPREAD,
		OPTIONS_DEFAULT_CONFIG, OPTIONS_DEFAULT_ATTRACT_S, OPTIONS_DEFAULT_ATTRACT_RAIN,
		OPTIONS_DEFAULT_STATS_INTERVAL_S, OPTIONS_DEFAULT_STATE_DIR,
		WORKERS_MAX);
}
