/*
 * The option table: every option's name, type, value's form, range,
 * default, reload class, --help text and man text, in one row each. The
 * command line, the settings file, --help, both man pages and the sample
 * settings are all made from it (options-parse.c, options-help.c,
 * options-doc.c); options.c has the code that reads it.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/homography.h"
#include "base/log.h"
#include "base/util.h"
#include "camera/camera-calibrate.h"
#include "camera/camera.h"
#include "input/input.h"
#include "render/render.h"
#include "render/workers.h"
#include "settings/options-private.h"
#include "settings/options.h"
#include "tuio/tuio.h"
#include "wall/blend.h"
#include "wall/layout.h"
#include "water/ripple.h"

/* The fields an option sets, so that a reload can tell what changed. */
#define FIELD(f) .offset = offsetof(struct options, f), .size = sizeof(((struct options *)0)->f)
#define SPAN(first, last) .offset = offsetof(struct options, first), \
	.size = offsetof(struct options, last) + sizeof(((struct options *)0)->last) - \
		offsetof(struct options, first)
#define RELOAD_LIVE OPTIONS_RELOAD_LIVE
#define RELOAD_NEW_WATER OPTIONS_RELOAD_NEW_WATER
#define RELOAD_RESTART OPTIONS_RELOAD_RESTART

/* A choice is stored as an int: the enums it sets must be one. */
_Static_assert(sizeof(enum backend_kind) == sizeof(int), "backend is an int");
_Static_assert(sizeof(enum pixel_format) == sizeof(int), "format is an int");
_Static_assert(sizeof(enum image_fit) == sizeof(int), "fit is an int");
_Static_assert(sizeof(enum water_model) == sizeof(int), "water is an int");

const struct option_group_text options_groups[GROUP_COUNT] = {
	[GROUP_OUTPUT] = { "Output", NULL },
	[GROUP_HEADLESS] = { "Headless (PNG frames)", NULL },
	[GROUP_PICTURE] = { "The picture and the light", NULL },
	[GROUP_WATER] = { "The water, in millimetres and seconds on the screen", NULL },
	[GROUP_SEEDS] = { "The same in the seeds' units",
			  "Each is auto by default, following from the above and the screen; a "
			  "number forces it. Sim-scale 1, steps-per-second 30, damping 5 and "
			  "refraction 2 are the classic effect, in pixels and steps." },
	[GROUP_TOUCH] = { "Touch",
			  "Touchscreens, tablets and other absolute pointers, and a mouse with its "
			  "button held, all drop stones." },
	[GROUP_EXHIBIT] = { "The exhibit", NULL },
	[GROUP_SPEED] = { "Speed",
			  "RIPPLE_SIMD=scalar|sse2|avx2|neon in the environment forces an "
			  "instruction set." },
	[GROUP_OTHER] = { "Other", NULL },
};

static const struct option_choice backends[] = {
	{ "auto", BACKEND_AUTO }, { "drm", BACKEND_DRM }, { "headless", BACKEND_HEADLESS },
	{ NULL, 0 },
};
static const struct option_choice formats[] = {
	{ "xrgb8888", PIXEL_XRGB8888 }, { "rgb565", PIXEL_RGB565 }, { NULL, 0 },
};
static const struct option_choice fits[] = {
	{ "cover", IMAGE_FIT_COVER }, { "contain", IMAGE_FIT_CONTAIN },
	{ "stretch", IMAGE_FIT_STRETCH }, { NULL, 0 },
};
static const struct option_choice on_off[] = { { "on", true }, { "off", false }, { NULL, 0 } };
static const struct option_choice mains[] = { { "50", 50 }, { "60", 60 }, { NULL, 0 } };
static const struct option_choice waters[] = {
	{ "pond", WATER_POND }, { "classic", WATER_CLASSIC }, { NULL, 0 },
};

/*
 * Every option, in the order --help and the pages show them: what it is,
 * its default and range, how a reload (SIGHUP) takes it, the fields it
 * sets, and its texts. LIVE: the running water, rain and touches take the
 * new value. NEW_WATER: the water is made again for it (the picture on
 * screen stays until then). RESTART: the display or the devices were
 * chosen with it; a reload says so and keeps the old value.
 * --help, the OPTIONS of ripple-kiosk(1), the KEYS and RELOADING of
 * ripple-kiosk.conf(5) and the sample config are printed from here
 * (tests/man.sh compares the pages with it: RK_UPDATE_DOCS=1 rewrites them).
 */
const struct option_row options_table[] = {
	/* ---- output ---- */
	{
		.name = "backend", .group = GROUP_OUTPUT, .type = OPTION_CHOICE,
		.choices = backends, .def = "auto", .example = "headless",
		.reload = RELOAD_RESTART, FIELD(backend),
		.help = "where frames go: auto, the display when there is one, else the headless "
			"demo",
		.man = "Where frames go.\n"
		       ".B auto\n"
		       "uses the display when there is one and otherwise renders the\n"
		       "built-in demo to PNG frames, saying why;\n"
		       ".B drm\n"
		       "insists on the display (the service uses this);\n"
		       ".B headless\n"
		       "writes PNG frames.",
	},
	{
		.name = "device", .group = GROUP_OUTPUT, .type = OPTION_STRING, .arg = "PATH",
		.def_text = "the first with KMS and dumb buffers, a real driver before a firmware "
			    "framebuffer",
		.example = "/dev/dri/card1",
		.reload = RELOAD_RESTART, FIELD(device),
		.help = "the DRM device",
		.man = "The DRM device, e.g.\n"
		       ".IR /dev/dri/card1 .",
	},
	{
		.name = "connector", .group = GROUP_OUTPUT, .type = OPTION_STRING, .arg = "NAME",
		.def_text = "every connected one", .example = "HDMI-A-1",
		.reload = RELOAD_RESTART, FIELD(connector),
		.help = "show on this connector only, e.g. HDMI-A-1",
		.man = "Show on this connector only, e.g.\n"
		       ".BR HDMI-A-1 .\n"
		       "An unknown name is an error listing the connectors there are.",
	},
	{
		.name = "mode", .group = GROUP_OUTPUT, .type = OPTION_MODE, .arg = "WxH[@HZ]",
		.def_text = "the connector's preferred mode, else its largest",
		.example = "1024x768@75",
		.reload = RELOAD_RESTART, SPAN(mode_width, mode_refresh_hz),
		.help = "the display mode",
		.man = "The display mode, e.g.\n"
		       ".BR 1920x1080@60 .",
	},
	{
		.name = "rotate", .group = GROUP_OUTPUT, .type = OPTION_ROTATION,
		.arg = "auto|0|90|180|270", .def = "auto", .example = "270",
		.reload = RELOAD_NEW_WATER, FIELD(rotate),
		.help = "turn the picture (and touch) clockwise for a rotated screen; auto: as the "
			"panel's orientation says, else 0",
		.man = "Turn the picture clockwise for a screen mounted rotated.\n"
		       "Touch follows the rotated picture.\n"
		       ".B auto\n"
		       "takes what the first screen's connector property\n"
		       ".B panel orientation\n"
		       "says (the kernel sets it for built-in panels of tablets and laptops, from\n"
		       "the firmware or its quirk list:\n"
		       ".B Upside Down\n"
		       "is 180,\n"
		       ".B Left Side Up\n"
		       "270,\n"
		       ".B Right Side Up\n"
		       "90), else 0.\n"
		       "The log line of the water says where its rotation came from.",
	},
	{
		.name = "layout", .group = GROUP_OUTPUT, .type = OPTION_LAYOUT,
		.arg = "\"NAME@X,Y[:WxH][/ROT] ...\"",
		.def_text = "every screen mirrors the same water",
		.example = "HDMI-A-1@0,0:1210x680 HDMI-A-2@1225,0/180",
		.reload = RELOAD_LIVE, FIELD(layout),
		.help = "a water wall: each connector's panel on the wall, its top-left corner and "
			"visible size in mm (size default: the connector's), turned ROT; one pond "
			"across them, the gaps are bezels; a projector as NAME@[X,Y;X,Y;X,Y;X,Y]"
			"[:WxHpx], where its picture's corners land (mm, clockwise from top left)",
		.man = "A water wall: one pond across several panels.\n"
		       "Each connector's panel is placed on the wall by the top-left corner X,Y\n"
		       "of its visible picture and its visible size WxH, in millimetres\n"
		       "(default: the size the connector reports), turned ROT degrees clockwise\n"
		       "as\n"
		       ".BR --rotate .\n"
		       "The water covers the panels' bounding box, at the pixel density of the\n"
		       "first; each panel draws its own window of it, so a ripple runs on under\n"
		       "a bezel and comes out on the next panel when the distance says.\n"
		       "Where that density would make the wall more than a picture can be (16256\n"
		       "pixels a side, 8192x8192 in all: five 4K panels side by side are 19390\n"
		       "wide), the wall is drawn coarser and each panel shows its window scaled\n"
		       "up, said in the log.\n"
		       "The picture covers the wall\n"
		       ".RB ( --fit\n"
		       "applies to the wall).\n"
		       "Panels that overlap, a connector named twice, or a size under 20 mm are\n"
		       "refused with one line; a connector the layout does not name stays dark;\n"
		       "a panel unplugged goes dark and the water keeps its size.\n"
		       "An output may instead be corner-pinned, as a projector is:\n"
		       ".BI NAME@[ X,Y;X,Y;X,Y;X,Y ][: WxH px]\n"
		       "gives where its picture's top-left, top-right, bottom-right and\n"
		       "bottom-left corners land on the surface, in millimetres, as measured\n"
		       "with a tape, and its size in pixels (needed headless).\n"
		       "Pinned outputs may overlap; the surface is the bounding box of all\n"
		       "outputs. Corners crossed, three in a line, turned in, or anticlockwise\n"
		       "(the picture seen from behind) are refused with one line naming the\n"
		       "output.\n"
		       "A reload\n"
		       ".RB ( SIGHUP )\n"
		       "moves the same outputs to their new places and corners at the next\n"
		       "frame, without a black one; a wall made or undone, or other outputs,\n"
		       "wait for the next restart.\n"
		       "With the headless backend each panel of a given size is an output of its\n"
		       "own (frames\n"
		       ".IR frame-NNNNN-NAME.png ),\n"
		       ".B --size\n"
		       "being the wall's.\n"
		       ".B --rotate\n"
		       "does not apply to a wall, nor\n"
		       ".B --screen-mm\n"
		       "to a wall of panels. With projectors alone,\n"
		       ".B --screen-mm\n"
		       "gives the surface, from the layout's origin: corners may lie past it\n"
		       "(negative ones too), and what a projector lights past it is black.",
	},
	{
		.name = "blend-gamma", .group = GROUP_OUTPUT, .type = OPTION_NUMBER, .arg = "GAMMA",
		.min = OPTIONS_MIN_BLEND_GAMMA, .max = OPTIONS_MAX_BLEND_GAMMA, .unit = "a gamma",
		.def = STR(OPTIONS_DEFAULT_BLEND_GAMMA), .example = "2.4",
		.reload = RELOAD_LIVE, FIELD(blend_gamma),
		.help = "the projectors' gamma: where corner-pinned outputs overlap, their "
			"weights add up to 1 in linear light, a pixel (level^GAMMA x weight)^(1/GAMMA)",
		.man = "Where corner-pinned outputs (projectors, see\n"
		       ".BR --layout )\n"
		       "overlap, each one's weight falls smoothly to 0 toward its own edge and\n"
		       "the weights of all outputs lighting a point add up to 1 in linear light,\n"
		       "as projectors' light adds on the floor: a pixel is\n"
		       "(level^GAMMA x weight)^(1/GAMMA). Most projectors are near 2.2 (sRGB);\n"
		       "a seam brighter or darker than its sides says the gamma is off.",
	},
	{
		.name = "blend-curve", .group = GROUP_OUTPUT, .type = OPTION_NUMBER, .arg = "P",
		.min = WALL_BLEND_CURVE_MIN, .max = WALL_BLEND_CURVE_MAX, .unit = "an exponent",
		.def = STR(OPTIONS_DEFAULT_BLEND_CURVE), .example = "3",
		.reload = RELOAD_LIVE, FIELD(blend_curve),
		.help = "the shape of a soft edge across an overlap, Bourke's exponent: 1 a straight "
			"ramp, larger flatter at both ends and steeper in the middle",
		.man = "The shape of the weight across an overlap of corner-pinned outputs,\n"
		       "Bourke's curve: 0.5 (2x)^P up to the overlap's middle and 1 - 0.5\n"
		       "(2 (1 - x))^P past it, x going from 0 at an output's edge to 1 where the\n"
		       "other's ends. 1 is a straight ramp; larger values keep each side's own\n"
		       "light longer and cross over more steeply in the middle, which hides a\n"
		       "misaligned overlap less but a wrong gamma more.",
	},
	{
		.name = "black-lift", .group = GROUP_OUTPUT, .type = OPTION_NUMBER, .arg = "PERCENT",
		.min = 0, .max = OPTIONS_MAX_BLACK_LIFT_PERCENT, .unit = "a percentage of full light",
		.def = "0", .example = "0.5",
		.reload = RELOAD_LIVE, FIELD(black_lift_percent),
		.help = "where one projector lights the floor alone, its black raised by this share "
			"of full light (linear), to match overlaps, where two projectors' blacks add",
		.man = "A projector's black is not black: where two overlap, their blacks add\n"
		       "and the overlap shows as a lighter band in dark scenes. This raises the\n"
		       "black where an output lights the floor alone by this share of its full\n"
		       "light (in linear light; the picture is squeezed above it), so that it\n"
		       "matches. Set it by eye on a black picture: the projector's black level,\n"
		       "typically 0.1 to 1 percent.",
	},
	{
		.name = "mask", .group = GROUP_OUTPUT, .type = OPTION_STRING,
		.arg = "\"NAME=FILE ...\"", .def_text = "none",
		.example = "HDMI-A-1=/etc/ripple-kiosk/pillar.png",
		.reload = RELOAD_LIVE, FIELD(masks), .check = wall_masks_check,
		.help = "a corner-pinned output's mask, a picture in its own pixels: where it is "
			"black the output stays black, its greys dim it (FILE without blanks)",
		.man = "A mask for a corner-pinned output (see\n"
		       ".BR --layout ):\n"
		       "a picture, scaled to the output's pixels, drawn over what the output\n"
		       "shows: where it is black the output stays black (a pillar, a stage's\n"
		       "edge, a carpet), where it is white the output is as it would be, and its\n"
		       "greys dim the light between, so that a mask's edge can be feathered.\n"
		       "One NAME=FILE for each output, parted by blanks; a FILE that cannot be\n"
		       "read is said in one line and its output is drawn unmasked.",
	},
	{
		.name = "test-pattern", .group = GROUP_OUTPUT, .type = OPTION_FLAG,
		.def = "no", .example = "yes",
		.reload = RELOAD_LIVE, FIELD(test_pattern),
		.help = "the corner-pinned outputs show the installer's pattern instead of the "
			"water: a 10 cm grid, each output's edge and numbered corners, the overlaps",
		.man = "The corner-pinned outputs (projectors) show a pattern on the surface\n"
		       "instead of the water: a grid every 100 mm of the layout's coordinates\n"
		       "(heavier every metre), each output's edge in a colour of its own with its\n"
		       "corners numbered 1 to 4 in the layout's order, and the overlaps lighter.\n"
		       "Where two projectors' lines do not fall on one another, their corners are\n"
		       "off: set them, and a reload\n"
		       ".RB ( SIGHUP )\n"
		       "shows the new ones at the next frame.",
	},
	{
		.name = "flip-timeout", .group = GROUP_OUTPUT, .type = OPTION_INT, .arg = "MS",
		.min = 1, .max = OPTIONS_MAX_FLIP_TIMEOUT_MS,
		.def = STR(OPTIONS_DEFAULT_FLIP_TIMEOUT_MS), .example = "500",
		.reload = RELOAD_RESTART, FIELD(flip_timeout_ms),
		.help = "a page flip not done by then is fatal",
		.man = "A page flip not completed within this many milliseconds is logged and the\n"
		       "program exits with status 1, so the service manager restarts it.",
	},
	{
		.name = "render-ahead", .group = GROUP_OUTPUT, .type = OPTION_RENDER_AHEAD,
		.arg = "auto|off|MS", .min = OPTIONS_MIN_RENDER_AHEAD_MS,
		.max = OPTIONS_MAX_RENDER_AHEAD_MS, .def = "auto", .example = "4.5",
		.reload = RELOAD_LIVE, FIELD(render_ahead_us),
		.help = "start each frame this long before the vblank it is for, touches read just "
			"before: auto, as long as frames take lately and a margin; off, as soon as "
			"the last flip is done; or a fixed time in ms",
		.man = "When each frame starts: this long before the vblank it is for, with the\n"
		       "touches read just before it, so that a touch is on the glass at the next\n"
		       "vblank rather than a frame later.\n"
		       ".B auto\n"
		       "takes the longest of the last 16 frames and a margin of 1.5 ms, more\n"
		       "under load (by the latest of the last second's wake-ups) and after a\n"
		       "frame that missed its vblank, and starts frames as soon as the last flip\n"
		       "is done while that reaches a refresh (a machine that cannot keep up, or\n"
		       "a busy one) or the frames alone take more than half of one (4K on a\n"
		       "small machine: a late start would gain little and risk a whole refresh).\n"
		       ".B off\n"
		       "starts them as soon as the last flip is done, as before: touches wait\n"
		       "one to two refreshes.\n"
		       "A number is a fixed time in milliseconds.",
	},
	/* ---- headless ---- */
	{
		.name = "size", .group = GROUP_HEADLESS, .type = OPTION_SIZE, .arg = "WxH",
		.min = RIPPLE_MIN_SIZE, .max = IMAGE_MAX_DIMENSION,
		.def = STR(OPTIONS_DEFAULT_WIDTH) "x" STR(OPTIONS_DEFAULT_HEIGHT),
		.example = "800x600",
		.reload = RELOAD_RESTART, SPAN(width, height),
		.help = "frame size",
		.man = "Frame size.",
	},
	{
		.name = "frames", .group = GROUP_HEADLESS, .type = OPTION_INT, .arg = "N",
		.min = 0, .max = OPTIONS_MAX_FRAMES, .def = STR(OPTIONS_DEFAULT_FRAMES),
		.example = "5",
		.reload = RELOAD_RESTART, FIELD(frames),
		.help = "frames to make; 0: run in real time at --refresh until SIGTERM, writing "
			"no frames",
		.man = "Frames to make, then exit.\n"
		       "With\n"
		       ".BR \"--frames 0\" ,\n"
		       "the headless display is a screen without glass: frames come in real time\n"
		       "at\n"
		       ".B --refresh\n"
		       "(drawn only when the water changes, as on a screen) until SIGTERM or\n"
		       "SIGINT, none is written to\n"
		       ".BR --output ,\n"
		       "and the service\\(aqs parts run as on a display (the start and stats\n"
		       "lines, the usage numbers in the state directory,\n"
		       ".BR --http ,\n"
		       "SIGUSR1\\(aqs screenshot and map), so they can be tried and tested\n"
		       "without one.",
	},
	{
		.name = "every", .group = GROUP_HEADLESS, .type = OPTION_INT, .arg = "N",
		.min = 1, .max = OPTIONS_MAX_FRAMES, .def = "1", .example = "2",
		.reload = RELOAD_RESTART, FIELD(every),
		.help = "write every Nth frame",
		.man = "Write every\n"
		       ".IR N th\n"
		       "frame.",
	},
	{
		.name = "output", .group = GROUP_HEADLESS, .type = OPTION_STRING, .arg = "DIR",
		.def = OPTIONS_DEFAULT_OUTPUT, .example = "/var/tmp/frames",
		.reload = RELOAD_RESTART, FIELD(output_dir),
		.help = "where frame-NNNNN.png go",
		.man = "Where\n"
		       ".I frame-NNNNN.png\n"
		       "go.",
	},
	{
		.name = "output-heights", .group = GROUP_HEADLESS, .type = OPTION_FLAG,
		.def = "no", .example = "yes",
		.reload = RELOAD_RESTART, FIELD(output_heights),
		.help = "also the water's heights beside each frame, heights-NNNNN.pgm (16 bits a "
			"cell, height + 32768)",
		.man = "Also write the water's heights beside each frame written, as\n"
		       ".IR heights-NNNNN.pgm :\n"
		       "a 16-bit binary PGM (P5, maxval 65535, big-endian), one pixel a cell of\n"
		       "the grid, holding the height + 32768.\n"
		       "The log line of the water gives the cell's size in mm.",
	},
	{
		.name = "refresh", .group = GROUP_HEADLESS, .type = OPTION_INT, .arg = "HZ",
		.min = 1, .max = OPTIONS_MAX_REFRESH_HZ, .def = STR(OPTIONS_DEFAULT_REFRESH_HZ),
		.example = "50",
		.reload = RELOAD_RESTART, FIELD(refresh_hz),
		.help = "frames per second of the virtual display",
		.man = "Frames per second of the virtual display.",
	},
	{
		.name = "format", .group = GROUP_HEADLESS, .type = OPTION_CHOICE,
		.choices = formats, .def = "xrgb8888", .example = "rgb565",
		.reload = RELOAD_RESTART, FIELD(format),
		.help = "pixel format rendered",
		.man = "Pixel format rendered.",
	},
	/* ---- the picture and the light ---- */
	{
		.name = "background", .group = GROUP_PICTURE, .type = OPTION_STRING,
		.arg = "FILE[:FILE|DIR]...", .def_text = "a built-in picture of pool tiles",
		.example = "/srv/pictures/koi.jpg:/srv/pictures/more",
		.reload = RELOAD_LIVE, FIELD(background),
		.help = "PNG, JPEG or PPM under the water; several, or a directory's, take turns",
		.man = "The picture under the water: PNG, JPEG or binary PPM, told apart by\n"
		       "their first bytes.\n"
		       "A picture that cannot be read (missing, truncated, corrupt, larger than\n"
		       "16384 pixels a side) gives one line naming the file and the reason, and\n"
		       "the built-in picture is shown instead.\n"
		       ".IP\n"
		       "Several pictures, separated by\n"
		       ".B :\n"
		       "as in\n"
		       ".BR PATH ,\n"
		       "take turns (see\n"
		       ".BR --picture-seconds ).\n"
		       "A directory gives its\n"
		       ".IR .png ,\n"
		       ".IR .jpg ,\n"
		       ".I .jpeg\n"
		       "and\n"
		       ".I .ppm\n"
		       "files (any case; hidden ones left out), sorted by name in byte order\n"
		       ".RB ( strcmp ,\n"
		       "the same in every locale: number them 01, 02, ..., since 10 sorts before\n"
		       "2).\n"
		       "A picture of the list that cannot be read is logged once and skipped\n"
		       "until the list is read again (SIGHUP); when none can be read, the\n"
		       "built-in picture shows.\n"
		       "With\n"
		       ".BR --strict ,\n"
		       "the first picture must be readable.",
	},
	{
		.name = "fit", .group = GROUP_PICTURE, .type = OPTION_CHOICE, .choices = fits,
		.def = "cover", .example = "contain",
		.reload = RELOAD_LIVE, FIELD(fit),
		.help = "how the picture fills the screen: cropped, letterboxed or distorted",
		.man = "How the picture fills the screen:\n"
		       ".B cover\n"
		       "crops what sticks out,\n"
		       ".B contain\n"
		       "shows all of it with black bars,\n"
		       ".B stretch\n"
		       "ignores the aspect ratio.",
	},
	{
		.name = "picture-seconds", .group = GROUP_PICTURE, .type = OPTION_INT, .arg = "N",
		.min = 0, .max = OPTIONS_MAX_PICTURE_SECONDS,
		.def = STR(OPTIONS_DEFAULT_PICTURE_SECONDS), .example = "300",
		.reload = RELOAD_LIVE, FIELD(picture_seconds),
		.help = "with several pictures: each stands N s, then fades into the next; 0: the "
			"first stays",
		.man = "With several pictures: each stands still for\n"
		       ".I N\n"
		       "seconds, then crossfades into the next; a new picture every\n"
		       ".I N\n"
		       "plus\n"
		       ".B --crossfade\n"
		       "seconds, round and round.\n"
		       "0 keeps the first.\n"
		       "Only the picture shown and the next are held decoded: the next is decoded\n"
		       "on a thread of its own while the current one stands.",
	},
	{
		.name = "crossfade", .group = GROUP_PICTURE, .type = OPTION_NUMBER,
		.arg = "SECONDS", .min = 0, .max = OPTIONS_MAX_CROSSFADE_S, .unit = "seconds",
		.def = STR(OPTIONS_DEFAULT_CROSSFADE_S), .example = "3.5",
		.reload = RELOAD_LIVE, FIELD(crossfade_s),
		.help = "how long one picture takes to fade into the next; 0 changes at once",
		.man = "How long one picture takes to fade into the next, the water moving over\n"
		       "both; 0 changes at once.",
	},
	{
		.name = "drift", .group = GROUP_PICTURE, .type = OPTION_INT, .arg = "PIXELS",
		.min = 0, .max = OPTIONS_MAX_DRIFT, .def = "0", .example = "4",
		.reload = RELOAD_LIVE, FIELD(drift),
		.help = "burn-in care (OLED, plasma): the picture wanders this far, a pixel every "
			"few minutes; 0 off",
		.man = "Burn-in care for OLED and plasma panels: the picture wanders within\n"
		       ".I PIXELS\n"
		       "each way, in whole pixels, one pixel at a time, minutes apart (x every 2\n"
		       "minutes, y every 3), so that no edge stays on the same pixels for hours\n"
		       "and nothing ever jumps.\n"
		       "The picture is scaled that much larger, so no black band shows.\n"
		       "0 is off.",
	},
	{
		.name = "obstacles", .group = GROUP_PICTURE, .type = OPTION_STRING, .arg = "FILE",
		.def_text = "none", .example = "/srv/pictures/rocks and reeds.png",
		.reload = RELOAD_LIVE, FIELD(obstacles),
		.help = "an image whose dark parts are solid walls in the water",
		.man = "An image whose dark parts (under half brightness) are solid walls in the\n"
		       "water, stretched to the screen: waves reflect off them and bend through\n"
		       "gaps.",
	},
	{
		.name = "strict", .group = GROUP_PICTURE, .type = OPTION_FLAG,
		.def = "no", .example = "yes",
		.reload = RELOAD_LIVE, FIELD(strict),
		.help = "a picture that cannot be read is fatal instead of replaced by the "
			"built-in one",
		.man = "A picture that cannot be read is fatal instead of replaced.",
	},
	{
		.name = "light", .group = GROUP_PICTURE, .type = OPTION_INT, .arg = "PERCENT",
		.min = 0, .max = OPTIONS_MAX_LIGHT_PERCENT,
		.def = STR(OPTIONS_DEFAULT_LIGHT_PERCENT), .example = "40",
		.reload = RELOAD_LIVE, FIELD(light),
		.help = "a lamp's mirror image in the water, in % of white: the slopes catch it; "
			"0 off",
		.man = "A lamp above the panel, mirrored by the water: how bright its mirror\n"
		       "image is, in % of the screen's white.\n"
		       "The slopes catch it, so rings show over any picture; a slope steeper\n"
		       "than the one that mirrors the lamp sees the room beyond it, so a\n"
		       "finger's dent shows a glint, not a patch of white; 0 is off.",
	},
	{
		.name = "light-from", .group = GROUP_PICTURE, .type = OPTION_LIGHT_FROM,
		.arg = "AZ:EL",
		.def = STR(OPTIONS_DEFAULT_LIGHT_AZIMUTH) ":" STR(OPTIONS_DEFAULT_LIGHT_ELEVATION),
		.example = "90:45.5",
		.reload = RELOAD_LIVE, SPAN(light_azimuth, light_elevation),
		.help = "where the lamp is: degrees clockwise from the screen's top edge, and "
			"above the panel",
		.man = "Where the lamp is: degrees clockwise from the screen's top edge, and\n"
		       "degrees above the panel. By default high, as a ceiling light over a touch\n"
		       "table, to the top left. The same lamp lights the floor through the water\n"
		       "(\\fB--caustics\\fR): its light goes down slanted from there.",
	},
	{
		.name = "caustics", .group = GROUP_PICTURE, .type = OPTION_CHOICE,
		.choices = on_off, .def = "on", .example = "off",
		.reload = RELOAD_LIVE, FIELD(caustics),
		.help = "the same lamp's light through the water onto the picture: brighter under "
			"crests, lines where it folds",
		.man = "The light through the water: the picture lies on the pond's floor and\n"
		       "the moving surface focuses the lamp's light onto it, brighter under\n"
		       "crests, darker under troughs, in bright lines where it folds; its\n"
		       "strength follows from\n"
		       ".B --depth\n"
		       "and the lamp. Flat water lights the floor evenly: the picture exactly.\n"
		       "Off gives the frames without it, exactly.",
	},
	{
		.name = "light-size", .group = GROUP_PICTURE, .type = OPTION_NUMBER,
		.arg = "DEGREES", .min = OPTIONS_MIN_LIGHT_SIZE_DEG,
		.max = OPTIONS_MAX_LIGHT_SIZE_DEG, .unit = "degrees across",
		.def = STR(OPTIONS_DEFAULT_LIGHT_SIZE_DEG), .example = "7.5",
		.reload = RELOAD_LIVE, FIELD(light_size_deg),
		.help = "the lamp's angular size: blurs those lines and bounds their brightness",
		.man = "The lamp's angular diameter seen from the water: a wider lamp\n"
		       "blurs the light's lines on the floor and bounds how bright they get.\n"
		       "The default is a ceiling light of 15 cm two metres up; the sun is 0.5.",
	},
	/* ---- the water ---- */
	{
		.name = "screen-mm", .group = GROUP_WATER, .type = OPTION_SIZE, .arg = "WxH",
		.min = SCREEN_MM_MIN, .max = SCREEN_MM_MAX, .unit = "mm",
		.def_text = "what the connector reports, else a 24-inch screen",
		.example = "1210x680",
		.reload = RELOAD_NEW_WATER, SPAN(screen_mm_width, screen_mm_height),
		.help = "the screen's size in mm as the viewer sees it",
		.man = "The screen's size in mm as the viewer sees it.\n"
		       "A size the connector reports (EDID, the panel driver) that is missing or\n"
		       "implausible is taken as a 24-inch screen (a strip of a few pixels,\n"
		       "16384x3, as square pixels on a short side of " STR(SCREEN_MM_MIN) " mm).\n"
		       "The start line says which size was used and where it came from.\n"
		       "With several screens mirrored, the water is made for the first one (its\n"
		       "millimetres are the true ones).\n"
		       "With a\n"
		       ".B --layout\n"
		       "of corner-pinned outputs alone, it is the surface they light, from the\n"
		       "layout's origin; a wall of panels is their bounding box.\n"
		       "Everything below is in millimetres and seconds on this screen, so the\n"
		       "water looks the same on a 10-inch, a 55-inch and a 4K screen.",
	},
	{
		.name = "water", .group = GROUP_WATER, .type = OPTION_CHOICE, .choices = waters,
		.def = "pond", .example = "classic",
		.reload = RELOAD_NEW_WATER, FIELD(water),
		.help = "pond: water's own waves, each length at its own speed, a tap rings out as "
			"a train; classic: the seeds' one ring at one speed",
		.man = "Which water.\n"
		       ".B pond\n"
		       "is water's own waves, each wavelength at its own speed (\\(*w\\(ha2 = (g\n"
		       "k + \\(*s/\\(*r k\\(ha3) tanh(k d)), damped by water's viscosity, so a\n"
		       "tap rings out as a train of ripples with a calm disc inside and short\n"
		       "capillary ripples running ahead, and a dragging finger holds ripples\n"
		       "ahead of it and longer waves behind.\n"
		       ".B classic\n"
		       "is the seeds' two-buffer ripple, bit for bit as it always was: one ring\n"
		       "at one speed.",
	},
	{
		.name = "depth", .group = GROUP_WATER, .type = OPTION_NUMBER, .arg = "MM",
		.min = OPTIONS_MIN_DEPTH_MM, .max = OPTIONS_MAX_DEPTH_MM, .unit = "mm",
		.def_text = STR(OPTIONS_DEFAULT_POND_DEPTH_MM) " for the pond, "
			    STR(OPTIONS_DEFAULT_DEPTH_MM) " for the classic water",
		.example = "60",
		.reload = RELOAD_LIVE, FIELD(depth_mm),
		.help = "how deep the water is; the picture lies on its floor and deeper bends it "
			"more",
		.man = "How deep the water is; the picture lies on its floor, so deeper bends it\n"
		       "more.\n"
		       "In the pond the depth also decides the waves: from about 20 mm every\n"
		       "ripple a finger makes is in deep water and a tap spreads into a train;\n"
		       "at 5 mm long waves all run at one speed and the train thins to nearly\n"
		       "one ring.\n"
		       "Under deep water a fingertip's fresh dent folds the picture over while\n"
		       "the finger is on it.",
	},
	{
		.name = "viscosity", .group = GROUP_WATER, .type = OPTION_NUMBER, .arg = "MM2_S",
		.min = 0, .max = OPTIONS_MAX_VISCOSITY_MM2_S, .unit = "mm^2 per second",
		.def = STR(OPTIONS_DEFAULT_VISCOSITY_MM2_S), .example = "0.5",
		.reload = RELOAD_LIVE, FIELD(viscosity_mm2_s),
		.help = "the pond's: how fast short ripples fade, mm^2 per second (the default is "
			"water's), 0 none",
		.man = "The pond's viscosity in mm^2 per second (the default is water's; 0\n"
		       "none): a wave of length \\(*l loses its height as\n"
		       "e^-2\\(*n(2\\(*p/\\(*l)^2 t, short ripples within a second, long waves\n"
		       "over minutes.",
	},
	{
		.name = "wave-speed", .group = GROUP_WATER, .type = OPTION_NUMBER, .arg = "CM_S",
		.min = OPTIONS_MIN_WAVE_SPEED_CM_S, .max = OPTIONS_MAX_WAVE_SPEED_CM_S,
		.unit = "cm per second", .def = STR(OPTIONS_DEFAULT_WAVE_SPEED_CM_S),
		.example = "30",
		.reload = RELOAD_LIVE, FIELD(wave_speed_cm_s),
		.help = "the classic water's: how fast ripples spread, cm per second",
		.man = "The classic water's: how fast ripples spread, in cm per second (the\n"
		       "default is the slowest ripples on real water).\n"
		       "The pond's waves run at water's own speeds; given to the pond, this is\n"
		       "said and ignored.",
	},
	{
		.name = "fade", .group = GROUP_WATER, .type = OPTION_NUMBER, .arg = "SECONDS",
		.min = OPTIONS_MIN_FADE_S, .max = OPTIONS_MAX_FADE_S, .unit = "seconds",
		.def = STR(OPTIONS_DEFAULT_FADE_S), .example = "9",
		.reload = RELOAD_LIVE, FIELD(fade_s),
		.help = "damping leaves a tenth of a wave after this, 0 never; water's viscosity "
			"takes short ripples sooner",
		.man = "Damping leaves a tenth of a wave after this long (0: no fade); water's\n"
		       "viscosity takes short ripples sooner, as on a pond.\n"
		       "With the default a tap's ring still reads after 3 seconds, on a busy\n"
		       "picture too, and the water is flat again within about 15.",
	},
	{
		.name = "stone-radius", .group = GROUP_WATER, .type = OPTION_NUMBER, .arg = "MM",
		.min = OPTIONS_MIN_LENGTH_MM, .max = OPTIONS_MAX_RADIUS_MM, .unit = "mm",
		.def = STR(OPTIONS_DEFAULT_STONE_RADIUS_MM), .example = "6",
		.reload = RELOAD_LIVE, FIELD(stone_radius_mm),
		.help = "radius of a fingertip's stone",
		.man = "Radius of a fingertip's stone: the dent it makes (the default: a contact\n"
		       "a centimetre across and the water bending down round it).",
	},
	{
		.name = "stone-weight", .group = GROUP_WATER, .type = OPTION_NUMBER, .arg = "MM",
		.min = OPTIONS_MIN_LENGTH_MM, .max = OPTIONS_MAX_WEIGHT_MM, .unit = "mm",
		.def = STR(OPTIONS_DEFAULT_STONE_WEIGHT_MM), .example = "2.5",
		.reload = RELOAD_LIVE, FIELD(stone_weight_mm),
		.help = "how deep a fingertip pushes the water",
		.man = "How deep a fingertip pushes the water.",
	},
	{
		.name = "rain", .group = GROUP_WATER, .type = OPTION_INT, .arg = "N",
		.min = 0, .max = OPTIONS_MAX_RAIN, .def = STR(OPTIONS_DEFAULT_RAIN),
		.example = "30",
		.reload = RELOAD_LIVE, FIELD(rain),
		.help = "raindrops per minute per square metre, 0 none",
		.man = "Raindrops per minute per square metre of screen, 0 for none.",
	},
	{
		.name = "rain-drop", .group = GROUP_WATER, .type = OPTION_NUMBER, .arg = "MM",
		.min = OPTIONS_MIN_LENGTH_MM, .max = OPTIONS_MAX_RADIUS_MM, .unit = "mm",
		.def = STR(OPTIONS_DEFAULT_RAIN_DROP_MM), .example = "4.5",
		.reload = RELOAD_LIVE, FIELD(rain_drop_mm),
		.help = "raindrops' radius, from half this to this",
		.man = "Raindrops' radius: from half this to this.",
	},
	{
		.name = "seed", .group = GROUP_WATER, .type = OPTION_SEED, .arg = "N",
		.def = STR(OPTIONS_DEFAULT_SEED), .example = "18446744073709551615",
		.reload = RELOAD_NEW_WATER, FIELD(seed),
		.help = "seed of the rain: the same seed rains the same way",
		.man = "Seed of the rain: the same seed rains the same way.",
	},
	{
		.name = "touch-script", .group = GROUP_WATER, .type = OPTION_STRING, .arg = "FILE",
		.def_text = "none", .example = "/srv/demo.script",
		.reload = RELOAD_RESTART, FIELD(touch_script),
		.help = "scripted fingers: lines 'FRAME down|move|up FINGER [X Y]'",
		.man = "Scripted fingers, one event a line:\n"
		       ".IR FRAME \" \" down | move | up \" \" FINGER \" [\" \"X Y\" ],\n"
		       "with\n"
		       ".B #\n"
		       "starting a comment.\n"
		       "Frames count from 0 at the refresh rate and never go back; coordinates\n"
		       "are the screen's pixels as the viewer sees them.\n"
		       "A malformed line is an error naming\n"
		       ".IR file : line .",
	},
	/* ---- the seeds' units ---- */
	{
		.name = "sim-scale", .group = GROUP_SEEDS, .type = OPTION_INT_AUTO, .arg = "auto|N",
		.min = 1, .max = OPTIONS_MAX_SIM_SCALE, .auto_value = 0, .def = "auto",
		.example = "2",
		.reload = RELOAD_NEW_WATER, FIELD(sim_scale),
		.help = "simulate the water at 1/N size, render full size",
		.man = "Simulate the water at 1/\\fIN\\fR of the screen's size; auto picks the\n"
		       "coarsest cells of a power of two pixels up to 2.87 mm (four to the\n"
		       "shortest ripple a tap leaves for a second, 11.5 mm), at least a pixel,\n"
		       "interpolated smoothly.\n"
		       "Either way the water has 4194304 cells (2048x2048) at the most: a finer\n"
		       "grid is made coarser, said in the log.",
	},
	{
		.name = "steps-per-second", .group = GROUP_SEEDS, .type = OPTION_INT_AUTO,
		.arg = "auto|N", .min = 1, .max = OPTIONS_MAX_STEPS_PER_SECOND, .auto_value = 0,
		.def = "auto", .example = "60",
		.reload = RELOAD_LIVE, FIELD(steps_per_second),
		.help = "water steps per second, whatever the refresh",
		.man = "Water steps per second, whatever the display's refresh rate; auto gives\n"
		       "the classic water's wave speed on those cells, and 240 for the pond\n"
		       "(whose waves are exact at any step; its steps keep a stone's time inside\n"
		       "a frame and follow a fast finger).",
	},
	{
		.name = "damping", .group = GROUP_SEEDS, .type = OPTION_INT_AUTO, .arg = "auto|N",
		.min = RIPPLE_DAMPING_MIN, .max = RIPPLE_DAMPING_MAX, .auto_value = 0,
		.def = "auto", .example = "7",
		.reload = RELOAD_LIVE, FIELD(damping),
		.help = "the classic water's: waves lose 1/2^N per step (the seeds used 5)",
		.man = "The classic water's: waves lose 1/2^\\fIN\\fR of their height per step,\n"
		       "the seeds' step with no viscosity; auto damps by a fraction that follows\n"
		       "the step rate, from\n"
		       ".BR --fade ,\n"
		       "and adds water's viscosity.",
	},
	{
		.name = "refraction", .group = GROUP_SEEDS, .type = OPTION_INT_AUTO,
		.arg = "auto|N", .min = RENDER_SHIFT_MIN, .max = RENDER_SHIFT_MAX,
		.auto_value = -1, .def = "auto", .example = "3",
		.reload = RELOAD_LIVE, FIELD(shift),
		.help = "the picture's offset is the height difference >> N",
		.man = "The picture is offset by the height difference shifted right by\n"
		       ".IR N ;\n"
		       "auto follows from\n"
		       ".BR --depth .",
	},
	/* ---- touch input ---- */
	{
		.name = "touch-device", .group = GROUP_TOUCH, .type = OPTION_STRING,
		.arg = "PATH|NAME", .def_text = "every touchscreen, tablet and mouse found",
		.example = "ILITEK Multi-Touch",
		.reload = RELOAD_RESTART, FIELD(touch_device),
		.help = "use only this input device",
		.man = "Use only this input device, by its\n"
		       ".I /dev/input/event*\n"
		       "path or its name.",
	},
	{
		.name = "touch-output", .group = GROUP_TOUCH, .type = OPTION_STRING, .arg = "NAME",
		.def_text = "the first screen; with --layout, the whole wall, as a touch frame "
			    "round it is",
		.example = "DP-1",
		.reload = RELOAD_LIVE, FIELD(touch_output),
		.help = "the connector the touchscreen is on",
		.man = "The connector the touchscreen is on.",
	},
	{
		.name = "touch-map", .group = GROUP_TOUCH, .type = OPTION_TOUCH_MAP,
		.arg = "\"DEVICE=NAME ...\"", .def_text = "none",
		.example = "ILITEK Multi-Touch=HDMI-A-1 /dev/input/event7=HDMI-A-2",
		.reload = RELOAD_RESTART, FIELD(touch_map),
		.help = "a touchscreen per panel of a wall: each device (as --touch-device takes "
			"it) on its connector",
		.man = "On a wall, a touchscreen per panel: each DEVICE (a path or a device's\n"
		       "name, as\n"
		       ".B --touch-device\n"
		       "takes it) lands on the panel of connector NAME.",
	},
	{
		.name = "touch-invert-x", .group = GROUP_TOUCH, .type = OPTION_FLAG,
		.def = "no", .example = "yes",
		.reload = RELOAD_LIVE, FIELD(touch_invert_x),
		.help = "mirror the touch x axis",
		.man = "Mirror the touch x axis.",
	},
	{
		.name = "touch-invert-y", .group = GROUP_TOUCH, .type = OPTION_FLAG,
		.def = "no", .example = "yes",
		.reload = RELOAD_LIVE, FIELD(touch_invert_y),
		.help = "mirror the touch y axis",
		.man = "Mirror the touch y axis.",
	},
	{
		.name = "calibration", .group = GROUP_TOUCH, .type = OPTION_MATRIX,
		.arg = "\"a b c d e f\"",
		.def_text = "the device's LIBINPUT_CALIBRATION_MATRIX udev property, if any",
		.example = "0 1 0 -1 0 1",
		.reload = RELOAD_LIVE, SPAN(has_calibration, calibration),
		.help = "libinput's calibration matrix on the 0..1 range",
		.man = "A libinput calibration matrix on the 0..1 range.",
	},
	{
		.name = "touch-corners", .group = GROUP_TOUCH, .type = OPTION_STRING,
		.arg = "\"X,Y X,Y X,Y X,Y\"",
		.def_text = "none: the inversions and the calibration matrix, if any",
		.example = "0.06,0.04 0.95,0.02 0.97,0.98 0.03,0.95",
		.reload = RELOAD_LIVE, FIELD(touch_corners), .check = homography_check_corners,
		.help = "the four-point calibration of a touch device: where it reports the "
			"picture's corners, on its own 0..1",
		.man = "The four-point calibration of a touch device mounted askew, or a touch\n"
		       "frame over a keystoned projection: where the device reports the\n"
		       "picture's top left, top right, bottom right and bottom left corners, as\n"
		       "the visitor sees the picture, each on the device's own 0..1 across its\n"
		       "axes (with RIPPLE_KIOSK_DEBUG=1 the log says it for every touch). It\n"
		       "takes the place of\n"
		       "the inversions and the calibration matrix (the option's and udev's).\n"
		       "A touch more than 5 % of the picture beyond its edge drops no stone.",
	},
	{
		.name = "touch-radius", .group = GROUP_TOUCH, .type = OPTION_BOUNDS,
		.arg = "MIN:MAX", .min = OPTIONS_MIN_LENGTH_MM, .max = OPTIONS_MAX_RADIUS_MM,
		.def_text = "the stone radius x1 to x" STR(OPTIONS_TOUCH_RADIUS_SPREAD),
		.example = "2:10",
		.reload = RELOAD_LIVE, SPAN(touch_radius_min, touch_radius_max),
		.help = "stone radius in mm from a fingertip to a flat hand, where the device "
			"reports contact size",
		.man = "Stone radius in mm from a fingertip to a flat hand, on devices that\n"
		       "report the contact's size.",
	},
	{
		.name = "touch-weight", .group = GROUP_TOUCH, .type = OPTION_BOUNDS,
		.arg = "MIN:MAX", .min = OPTIONS_MIN_LENGTH_MM, .max = OPTIONS_MAX_WEIGHT_MM,
		.def_text = "the stone weight /" STR(OPTIONS_TOUCH_WEIGHT_SPREAD) " to x"
			    STR(OPTIONS_TOUCH_WEIGHT_SPREAD),
		.example = "1:12.5",
		.reload = RELOAD_LIVE, SPAN(touch_weight_min, touch_weight_max),
		.help = "stone weight in mm from the lightest to the firmest press, where the "
			"device reports pressure",
		.man = "Stone weight in mm from the lightest to the firmest press, on devices\n"
		       "that report pressure.",
	},
	{
		.name = "stuck-touch", .group = GROUP_TOUCH, .type = OPTION_INT, .arg = "SECONDS",
		.min = 0, .max = OPTIONS_MAX_STUCK_TOUCH_S,
		.def = STR(OPTIONS_DEFAULT_STUCK_TOUCH_S),
		.example = "45",
		.reload = RELOAD_LIVE, FIELD(stuck_touch_s),
		.help = "a contact that has not moved for this long is stuck, not a visitor, until "
			"it lifts; 0 never",
		.man = "A contact that has not moved more than 3 mm for this long is stuck (a\n"
		       "faulty panel, something lying on it): it no longer counts as a visitor,\n"
		       "so it holds off neither the attract rain nor the dark screen outside\n"
		       "opening hours, until it lifts; 0 never.\n"
		       "A finger held still counts as a visitor until then.",
	},
	{
		.name = "grab", .group = GROUP_TOUCH, .type = OPTION_FLAG,
		.def = "no", .example = "yes",
		.reload = RELOAD_RESTART, FIELD(grab),
		.help = "take the input devices for this program alone (EVIOCGRAB)",
		.man = "Take the input devices for this program alone\n"
		       ".RB ( EVIOCGRAB ).",
	},
	/* ---- the exhibit ---- */
	{
		.name = "config", .cmdline = true, .group = GROUP_EXHIBIT, .type = OPTION_CONFIG,
		.arg = "FILE", .reload = RELOAD_RESTART, FIELD(config),
		.help = "settings file",
		.man = "Read the settings from\n"
		       ".I FILE\n"
		       "(which must exist) instead of\n"
		       ".I ripple-kiosk.conf\n"
		       "in the\n"
		       ".I sysconfdir\n"
		       "the program was configured with (read when it exists):\n"
		       ".I /etc/ripple-kiosk.conf\n"
		       "for a build configured for the prefix\n"
		       ".I /usr\n"
		       "(as a distribution's package is),\n"
		       ".I /usr/local/etc/ripple-kiosk.conf\n"
		       "for the default prefix\n"
		       ".IR /usr/local .\n"
		       ".B --help\n"
		       "names it.\n"
		       "See\n"
		       ".BR ripple-kiosk.conf (5).",
	},
	{
		.name = "check-config", .cmdline = true, .group = GROUP_EXHIBIT,
		.type = OPTION_CHECK_CONFIG, .arg = "[FILE]", .reload = RELOAD_RESTART,
		.help = "check that file (default: the one read) and the pictures, directories and "
			"scripts it names, then exit: 0 and \"FILE: ok\", or 1 and every error as "
			"FILE:LINE: key: ...",
		.man = "Check\n"
		       ".I FILE\n"
		       "(default: the file the kiosk would read, as\n"
		       ".B --config\n"
		       "or the default says) and every picture, directory, device and script it\n"
		       "names, as the kiosk would at start, then\n"
		       "exit without showing anything: status 0 and\n"
		       ".IB FILE \": ok\"\n"
		       "on standard output, or status 1 and every error on standard error, one\n"
		       "line each as\n"
		       ".IB FILE : LINE : \" key\" \": ...\\fR,\"\n"
		       "as\n"
		       ".B sshd -t\n"
		       "and\n"
		       ".B nginx -t\n"
		       "do.",
	},
	{
		.name = "print-fitted", .cmdline = true, .group = GROUP_EXHIBIT,
		.type = OPTION_PRINT_FITTED, .reload = RELOAD_RESTART,
		.help = "print the fitted settings (the state directory's fitted.conf, saved from "
			"the fitting page) as config lines, then exit",
		.man = "Print the settings fitted on the status server's fitting page\n"
		       "(\\fB/fit\\fR) and saved in the state directory's\n"
		       ".I fitted.conf\n"
		       "as configuration lines, to copy into a fleet's configuration, then\n"
		       "exit: nothing and status 0 when there is none, one line and status 1\n"
		       "when it cannot be read.\n"
		       "The fitted file is read after the configuration file and before the\n"
		       "command line, at the start and at every reload; it holds only the keys\n"
		       "fitted (a projector's corners in\n"
		       ".BR --layout ,\n"
		       "the soft edge's\n"
		       ".BR --blend-curve ,\n"
		       ".B --blend-gamma\n"
		       "and\n"
		       ".BR --black-lift ,\n"
		       ".B --camera-corners\n"
		       "and\n"
		       ".BR --touch-corners ),\n"
		       "so a later change to any other key of the configuration still takes\n"
		       "effect.\n"
		       ".B --check-config\n"
		       "names it and the keys it overrides.",
	},
	{
		.name = "give-back-console", .cmdline = true, .group = GROUP_EXHIBIT,
		.type = OPTION_GIVE_BACK, .arg = "TTY", .reload = RELOAD_RESTART,
		.help = "that VT back to the text console (KD_TEXT, VT_AUTO, cleared), then exit: "
			"the unit runs it after any exit",
		.man = "Give the virtual terminal\n"
		       ".I TTY\n"
		       "back to the text console (KD_TEXT, VT_AUTO, the screen and its\n"
		       "scrollback cleared), whoever left it in graphics mode, then exit.\n"
		       "The unit runs it after any exit of the kiosk, a crash too\n"
		       "(\\fBExecStopPost=\\fR), in place of systemd's\n"
		       ".BR TTYReset= ,\n"
		       ".B TTYVHangup=\n"
		       "and\n"
		       ".BR TTYVTDisallocate= ,\n"
		       "which systemd applies to every command of a unit, a reload's too.\n"
		       "Run it before a reload (SIGHUP) or a reboot.\n"
		       "It takes no other option.",
	},
	{
		.name = "attract", .group = GROUP_EXHIBIT, .type = OPTION_INT, .arg = "SECONDS",
		.min = 0, .max = OPTIONS_MAX_ATTRACT_S, .def = STR(OPTIONS_DEFAULT_ATTRACT_S),
		.example = "45",
		.reload = RELOAD_LIVE, FIELD(attract_s),
		.help = "after this long without a touch it rains; 0 never",
		.man = "After this long without a touch it rains until the next touch; 0 never.",
	},
	{
		.name = "attract-rain", .group = GROUP_EXHIBIT, .type = OPTION_INT, .arg = "N",
		.min = 0, .max = OPTIONS_MAX_RAIN, .def = STR(OPTIONS_DEFAULT_ATTRACT_RAIN),
		.example = "60",
		.reload = RELOAD_LIVE, FIELD(attract_rain),
		.help = "raindrops per minute per square metre then",
		.man = "Raindrops per minute per square metre of screen then (the default is\n"
		       "about 4 a second on a 55-inch screen, 1 on a 24-inch one).",
	},
	{
		.name = "opening-hours", .group = GROUP_EXHIBIT, .type = OPTION_OPENING_HOURS,
		.arg = "HH:MM-HH:MM|always", .def = "always", .example = "09:30-18:00",
		.reload = RELOAD_LIVE, SPAN(has_opening_hours, close_min),
		.help = "outside them the screen goes dark when idle, a touch wakes it",
		.man = "Outside these hours (local time; the span may pass midnight, as in\n"
		       "18:00-02:00) the screen goes dark when nobody touches it\n"
		       "(for the\n"
		       ".B --attract\n"
		       "seconds, or a minute with\n"
		       ".BR \"--attract 0\" ;\n"
		       "DPMS off where the connector supports it); a touch or the opening time\n"
		       "wakes it.\n"
		       ".B always\n"
		       "is always open.",
	},
	{
		.name = "sleep-after", .group = GROUP_EXHIBIT, .type = OPTION_INT, .arg = "SECONDS",
		.min = 0, .max = OPTIONS_MAX_SLEEP_AFTER_S, .def = "0", .example = "900",
		.reload = RELOAD_LIVE, FIELD(sleep_after_s),
		.help = "after this long without a touch the screens are switched off (DPMS, "
			"backlight) until a touch; 0 never",
		.man = "After this long without a touch the screens are switched off: DPMS off\n"
		       "through KMS, and the backlight where the panel has one\n"
		       ".RI ( /sys/class/backlight ).\n"
		       "The first touch brings them back with the water on them; 0 never.\n"
		       "A screen that refuses DPMS is said once in the log and shows black\n"
		       "instead.",
	},
	{
		.name = "cec", .group = GROUP_EXHIBIT, .type = OPTION_DEVICE,
		.arg = "auto|off|DEVICE", .def = "auto", .example = "/dev/cec0",
		.reload = RELOAD_LIVE, FIELD(cec_device),
		.help = "HDMI-CEC: the TV goes to standby when the screens sleep and is woken and "
			"switched to the kiosk when they wake; auto takes the adapter of the "
			"screen shown, or the only one; or a device (/dev/cec0)",
		.man = "HDMI-CEC, through the kernel\\(aqs CEC adapters\n"
		       ".RI ( /dev/cec N ):\n"
		       "the kiosk claims a playback device\\(aqs address, sends the TV\n"
		       ".B Standby\n"
		       "when the screens sleep\n"
		       ".RB ( --sleep-after ,\n"
		       "closing time,\n"
		       ".BR \"POST /sleep\" ),\n"
		       "and\n"
		       ".B Image View On\n"
		       "then\n"
		       ".B Active Source\n"
		       "when they wake and at start, and reads the TV\\(aqs power every 30 s\n"
		       "(shown on the status page).\n"
		       ".B auto\n"
		       "takes the adapter whose connector is the screen shown, else the only one\n"
		       "that is not an HDMI input;\n"
		       ".B off\n"
		       "sends nothing; anything else names the adapter.\n"
		       "An adapter that cannot find its physical address itself (a USB one:\n"
		       "Pulse-Eight, RainShadow) is given it from the EDID of the screen shown,\n"
		       "again after a hotplug.\n"
		       "No adapter, a TV that does not answer, a busy bus, no physical address\n"
		       "(the TV unplugged) are each said in one line, and the water goes on; an\n"
		       "adapter plugged in later is taken.",
	},
	{
		.name = "sound", .group = GROUP_EXHIBIT, .type = OPTION_DEVICE,
		.arg = "auto|off|DEVICE", .def = "auto", .example = "plughw:1,0",
		.reload = RELOAD_LIVE, FIELD(sound_device),
		.help = "the card the water is heard on: auto takes the ALSA default where "
			"/etc/asound.conf sets one, else the first card that plays; or an ALSA "
			"device (plughw:1,0)",
		.man = "The card the water is heard on, through ALSA: every touch and raindrop\n"
		       "rings the air bubble it traps (see SOUND).\n"
		       ".B auto\n"
		       "takes the ALSA default where\n"
		       ".I /etc/asound.conf\n"
		       "sets one, else the first card with a playback device\n"
		       ".RB ( plughw:\\fIC\\fR,\\fID\\fR );\n"
		       ".B off\n"
		       "is silent; anything else names an ALSA device, as\n"
		       ".BR plughw:1,0 .\n"
		       "No card, or one that goes away, is said in one line (and each of\n"
		       "libasound\\(aqs own messages, once) and the water goes on silently; a\n"
		       "card that comes later is taken.",
	},
	{
		.name = "volume", .group = GROUP_EXHIBIT, .type = OPTION_INT, .arg = "N",
		.min = 0, .max = OPTIONS_MAX_VOLUME, .def = STR(OPTIONS_DEFAULT_VOLUME),
		.example = "40",
		.reload = RELOAD_LIVE, FIELD(volume),
		.help = "how loud",
		.man = "How loud.\n"
		       "The card's speaker controls (Master, PCM, Speaker, Headphone, Front,\n"
		       "Line Out; a card's only playback control) are switched on at 0 dB when\n"
		       "the card is opened; this scales the sound.",
	},
	{
		.name = "quiet-hours", .group = GROUP_EXHIBIT, .type = OPTION_QUIET_HOURS,
		.arg = "HH:MM-HH:MM|none", .def = "none", .example = "12:00-13:30",
		.reload = RELOAD_LIVE, SPAN(has_quiet_hours, quiet_to_min),
		.help = "silent then, the water goes on; silent too while the screens sleep and "
			"outside opening hours",
		.man = "Silent then (local time; the span may pass midnight), while the water\n"
		       "goes on.\n"
		       ".B none\n"
		       "is never.\n"
		       "The sound is silent too while the screens sleep and outside opening\n"
		       "hours.",
	},
	{
		.name = "stats-interval", .group = GROUP_EXHIBIT, .type = OPTION_INT,
		.arg = "SECONDS", .min = 0, .max = OPTIONS_MAX_STATS_INTERVAL_S,
		.def = STR(OPTIONS_DEFAULT_STATS_INTERVAL_S), .example = "60",
		.reload = RELOAD_LIVE, FIELD(stats_interval_s),
		.help = "a stats line (frame rate, frame times, touches) this often; 0 never",
		.man = "Log a line of statistics this often: frames per second, frame time p50\n"
		       "and p99, touches, missed flips; 0 never.",
	},
	{
		.name = "state-dir", .group = GROUP_EXHIBIT, .type = OPTION_STRING, .arg = "DIR",
		.def_text = "$STATE_DIRECTORY, else " OPTIONS_DEFAULT_STATE_DIR,
		.example = "/run/ripple",
		.reload = RELOAD_LIVE, FIELD(state_dir),
		.help = "where SIGUSR1 writes a PNG of the screen, and the usage numbers go",
		.man = "Where\n"
		       ".B SIGUSR1\n"
		       "writes\n"
		       ".IR screen.png ,\n"
		       "once a second at the most however many signals come (those sooner are\n"
		       "said once and not taken; the picture is encoded and written beside the\n"
		       "frames, which go on), and the usage numbers go (see\n"
		       ".BR --usage-days ).",
	},
	{
		.name = "usage-days", .group = GROUP_EXHIBIT, .type = OPTION_INT, .arg = "N",
		.min = 0, .max = OPTIONS_MAX_USAGE_DAYS, .def = STR(OPTIONS_DEFAULT_USAGE_DAYS),
		.example = "30",
		.reload = RELOAD_LIVE, FIELD(usage_days),
		.help = "usage.csv there keeps N days of hourly rows, and touches.png shows where "
			"fingers landed; 0 none",
		.man = "Keep the curator's numbers in the state directory:\n"
		       ".I usage.csv\n"
		       "with a row for each hour (touches, the most fingers at once, seconds\n"
		       "with someone touching, frames per second, missed flips, seconds\n"
		       "running), rows older than\n"
		       ".I N\n"
		       "days removed (a gap of more than a day between rows counts as one, so a\n"
		       "clock set far ahead removes a day of them at most); and\n"
		       ".IR touches.png ,\n"
		       "a map of where fingers landed over the dimmed picture, every hour and on\n"
		       ".BR SIGUSR1 ,\n"
		       "drawn from the counts in\n"
		       ".IR touches-grid.csv .\n"
		       "0 keeps none of them.",
	},
	{
		.name = "tuio", .group = GROUP_TOUCH, .type = OPTION_STRING, .arg = "[ADDR:]PORT",
		.def_text = "none, or the socket systemd hands over", .example = "3333",
		.reload = RELOAD_RESTART, FIELD(tuio), .check = tuio_parse_listen,
		.help = "take feet and hands from trackers (cameras, lidars) over TUIO on this "
			"UDP port",
		.man = "Take feet and hands from trackers (cameras, lidars, IR frames) over\n"
		       "TUIO 1.1\n"
		       ".RB ( /tuio/2Dcur ,\n"
		       ".BR /tuio/2Dblb ,\n"
		       ".BR /tuio/2Dobj )\n"
		       "and 2.0\n"
		       ".RB ( /tuio2/ptr )\n"
		       "on this UDP port (TUIO's own is " STR(TUIO_DEFAULT_PORT) "). A port alone listens on\n"
		       "loopback, for a bridge on this machine; a numeric address before it\n"
		       ".RB ( 0.0.0.0:3333 ,\n"
		       ".BR [::]:3333 )\n"
		       "listens there. A multicast group\n"
		       ".RB ( 239.1.2.3:3333 ,\n"
		       ".BR [ff15::1]:3333 )\n"
		       "is joined, on the interface the route to it goes by, or on the one\n"
		       "named after a %\n"
		       ".RB ( 239.1.2.3%eth0:3333 ,\n"
		       ".BR [ff15::1%eth0]:3333 ):\n"
		       "one tracker then feeds several kiosks. Each tracked point is a\n"
		       "finger: it lands where it appears, drags a wake, and lifts when its\n"
		       "tracker leaves it out.\n"
		       "Coordinates are 0..1 across the screen, or across the whole wall with\n"
		       ".BR \\-\\-layout .\n"
		       "Refused packets are counted by reason in\n"
		       ".BR /metrics .\n"
		       "The service may instead be handed a UDP socket by systemd\n"
		       ".RI ( ripple-kiosk-tuio.socket ,\n"
		       "shipped but not enabled), and then opens no network socket itself.",
	},
	{
		.name = "tuio-from", .group = GROUP_TOUCH, .type = OPTION_STRING,
		.arg = "ADDR[,ADDR...]", .def_text = "any sender", .example = "192.168.1.20",
		.reload = RELOAD_RESTART, FIELD(tuio_from), .check = tuio_parse_from,
		.help = "the trackers' hosts: packets from any other are dropped and counted",
		.man = "The only hosts trackers' packets are taken from (numeric addresses, at\n"
		       "most " STR(TUIO_FROM_MAX) "); a packet from any other is dropped and counted.",
	},
	{
		.name = "tuio-timeout", .group = GROUP_TOUCH, .type = OPTION_NUMBER,
		.arg = "SECONDS", .min = OPTIONS_MIN_TUIO_TIMEOUT_S,
		.max = OPTIONS_MAX_TUIO_TIMEOUT_S, .unit = "seconds",
		.def = STR(OPTIONS_DEFAULT_TUIO_TIMEOUT_S), .example = "2.5",
		.reload = RELOAD_RESTART, FIELD(tuio_timeout_s),
		.help = "a tracker silent this long has its points lifted",
		.man = "A tracker silent this long has its points lifted, as if every foot\n"
		       "had stepped off.",
	},
	{
		.name = "tuio-corners", .group = GROUP_TOUCH, .type = OPTION_STRING,
		.arg = "\"X,Y X,Y X,Y X,Y\"", .def_text = "none: the tracker's 0..1 is the surface's",
		.example = "0.1,0.05 0.9,0.08 0.95,0.92 0.04,0.9",
		.reload = RELOAD_RESTART, FIELD(tuio_corners), .check = tuio_check_corners,
		.help = "the four-point calibration: where the tracker sees the surface's "
			"corners",
		.man = "The four-point calibration of a tracker that sees the surface in\n"
		       "perspective: the tracker's coordinates of the surface's top left, top\n"
		       "right, bottom right and bottom left corners, in that order: clockwise as\n"
		       "the tracker sees them, each within -1..2. Corners anticlockwise (the\n"
		       "surface mirrored), crossed, turned in, nearly in a line, or a sliver\n"
		       "(less than 1/100 as wide as long) are refused.",
	},
	{
		.name = "camera", .group = GROUP_TOUCH, .type = OPTION_STRING,
		.arg = "DEVICE|DIR|auto", .def_text = "none", .example = "auto",
		.reload = RELOAD_LIVE, FIELD(camera),
		.help = "see feet and hands with the kiosk's own camera (V4L2), or replay a "
			"folder of its frames",
		.man = "See feet and hands with the kiosk's own camera: a V4L2 capture device\n"
		       ".RB ( /dev/video0 ,\n"
		       "a\n"
		       ".B /dev/v4l/by\\-id/\n"
		       "link), or\n"
		       ".B auto\n"
		       "for the first that captures. Each foot or hand it sees on the floor is a\n"
		       "finger: it lands as a stone sized by its size on the floor, drags a wake\n"
		       "and lifts when it leaves. The camera must not see the projection: an IR\n"
		       "camera with 850 nm lamps and an IR-pass filter, or a depth camera. A\n"
		       "camera unplugged, stalled or busy is said in one line and taken again\n"
		       "when it comes back; the water goes on. A folder of numbered PGM, PNG or\n"
		       "JPEG frames (as\n"
		       ".B \\-\\-camera\\-record\n"
		       "writes) is replayed at\n"
		       ".BR \\-\\-camera\\-mode 's\n"
		       "rate, in real time, or frame by frame with\n"
		       ".BR \\-\\-frames .\n"
		       "A reload that names another takes it.",
	},
	{
		.name = "camera-mode", .group = GROUP_TOUCH, .type = OPTION_STRING,
		.arg = "WxH@FPS", .def_text = "the camera's highest rate at 640x480, or the nearest "
		"size below", .example = "640x480@60",
		.reload = RELOAD_LIVE, FIELD(camera_mode), .check = camera_check_mode,
		.help = "the camera's size and frame rate (a recording's rate)",
		.man = "The camera's picture size and frame rate; one it does not offer is\n"
		       "refused in one line naming those it does. A recording's frames are\n"
		       "replayed at this rate (30 a second when not given).",
	},
	{
		.name = "camera-scale", .group = GROUP_TOUCH, .type = OPTION_STRING,
		.arg = "WxH", .def = OPTIONS_DEFAULT_CAMERA_SCALE, .example = "160x120",
		.reload = RELOAD_LIVE, FIELD(camera_scale), .check = camera_check_scale,
		.help = "the largest picture the vision looks at (the camera's shrunk to fit)",
		.man = "The largest picture the vision looks at, at most " STR(VISION_MAX_W) "x"
		       STR(VISION_MAX_H) ": the\n"
		       "camera's is shrunk by a whole factor to fit. Finer costs time and sees\n"
		       "nothing more of a foot.",
	},
	{
		.name = "camera-absorb", .group = GROUP_TOUCH, .type = OPTION_NUMBER,
		.arg = "SECONDS", .min = OPTIONS_MIN_CAMERA_ABSORB_S,
		.max = OPTIONS_MAX_CAMERA_ABSORB_S, .unit = "seconds",
		.def = STR(OPTIONS_DEFAULT_CAMERA_ABSORB_S), .example = "60",
		.reload = RELOAD_LIVE, FIELD(camera_absorb_s),
		.help = "what stands still this long becomes floor (a bag left on it)",
		.man = "What stands still on the floor this long becomes floor: a bag left\n"
		       "there stops being a foot. A reload learns the floor again.",
	},
	{
		.name = "camera-min-size", .group = GROUP_TOUCH, .type = OPTION_NUMBER,
		.arg = "MM", .min = OPTIONS_MIN_CAMERA_MIN_SIZE_MM,
		.max = OPTIONS_MAX_CAMERA_MIN_SIZE_MM, .unit = "mm",
		.def = STR(OPTIONS_DEFAULT_CAMERA_MIN_SIZE_MM), .example = "100",
		.reload = RELOAD_LIVE, FIELD(camera_min_size_mm),
		.help = "what the camera sees smaller than this across, on the floor, is noise",
		.man = "What the camera sees smaller than this across, on the floor, is noise,\n"
		       "not a foot or a hand.",
	},
	{
		.name = "camera-masks", .group = GROUP_TOUCH, .type = OPTION_STRING,
		.arg = "DIR", .def_text = "none", .example = "/var/tmp/masks",
		.reload = RELOAD_LIVE, FIELD(camera_masks),
		.help = "write what the camera saw as people, each frame a PGM, for tuning",
		.man = "Write each frame's foreground (0 floor, 255 people) as a PGM of the\n"
		       "vision's size into this folder, named as the frame it was seen in, for\n"
		       "tuning on a recording.",
	},
	{
		.name = "camera-record", .group = GROUP_TOUCH, .type = OPTION_STRING,
		.arg = "DIR", .def_text = "none", .example = "/var/tmp/camera",
		.reload = RELOAD_LIVE, FIELD(camera_record),
		.help = "keep what the camera sees, each frame a PGM, to replay with --camera DIR",
		.man = "Keep what the camera sees, at the vision's size, as numbered PGM frames\n"
		       "in this folder: replayed later with\n"
		       ".B \\-\\-camera\n"
		       "DIR, to tune on what the camera saw last night. A full disk stops the\n"
		       "recording, said in one line; the rest goes on.",
	},
	{
		.name = "camera-corners", .group = GROUP_TOUCH, .type = OPTION_STRING,
		.arg = "\"X,Y X,Y X,Y X,Y [X,Y=U,V ...]\"",
		.def_text = "none: the camera's picture is the surface",
		.example = "0.1,0.05 0.9,0.08 0.95,0.92 0.04,0.9",
		.reload = RELOAD_LIVE, FIELD(camera_corners), .check = camera_check_points,
		.help = "the calibration: where the camera sees the surface's corners (0..1 of its "
			"picture), and more points",
		.man = "The calibration by hand: where the camera sees the surface's top left,\n"
		       "top right, bottom right and bottom left corners, 0..1 across its picture,\n"
		       "clockwise as it sees them (checked as\n"
		       ".BR \\-\\-tuio\\-corners ),\n"
		       "and more points\n"
		       ".B X,Y=U,V\n"
		       "where the camera sees the surface's point U,V (0..1 across it), up to\n"
		       STR(CAMERA_POINTS_MAX) " in all, fitted by least squares.",
	},
	{
		.name = "camera-calibrate", .group = GROUP_TOUCH, .type = OPTION_FLAG,
		.def = "no", .example = "yes",
		.reload = RELOAD_RESTART, FIELD(camera_calibrate),
		.help = "at the start, the projectors show markers for the camera to find, and its "
			"calibration is saved in the state directory (also SIGUSR2, POST /calibrate)",
		.man = "At the start the outputs show, instead of the water, the floor dark and\n"
		       "then a bright dot " STR(CAMERA_CALIB_DOT_MM) " mm across at nine points of the\n"
		       "surface in turn (" STR(CAMERA_CALIB_PHASE_MS) " ms each, about five seconds in\n"
		       "all); the camera finds each, the homography is fitted and checked, and\n"
		       "the surface\\(aqs corners as the camera sees them are written to\n"
		       ".I camera-corners\n"
		       "in the state directory, which later starts take when no\n"
		       ".B \\-\\-camera\\-corners\n"
		       "is given. A marker not found is named in one line and the calibration\n"
		       "in force stays.\n"
		       ".B SIGUSR2\n"
		       "and the status page\\(aqs\n"
		       ".B POST /calibrate\n"
		       "do the same while it runs. A camera behind an IR-pass filter does not see\n"
		       "the markers: calibrate it with the filter off, or by hand.",
	},
	{
		.name = "camera-mains", .group = GROUP_TOUCH, .type = OPTION_CHOICE,
		.choices = mains, .def = STR(OPTIONS_DEFAULT_CAMERA_MAINS_HZ), .example = "60",
		.reload = RELOAD_LIVE, FIELD(camera_mains_hz),
		.help = "the mains' frequency, in Hz, for the camera's anti-flicker",
		.man = "The mains' frequency in Hz, for the camera's anti-flicker: lamps on\n"
		       "the mains flicker at twice it.",
	},
	{
		.name = "http", .group = GROUP_EXHIBIT, .type = OPTION_LISTEN, .arg = "ADDR:PORT",
		.def_text = "none, or the socket systemd hands over", .example = "127.0.0.1:8080",
		.reload = RELOAD_RESTART, FIELD(http),
		.help = "serve the status page, /metrics and the screen there",
		.man = "Serve the technician's window over HTTP at a numeric address and port\n"
		       ".RB ( 127.0.0.1:8080 ,\n"
		       ".BR [::]:8080 ;\n"
		       "port 0 takes a free one, said in the log); a name such as\n"
		       ".B localhost\n"
		       "is refused as a bad value.\n"
		       "The service may instead be handed a listening socket by\n"
		       "systemd\n"
		       ".RI ( ripple-kiosk-http.socket ,\n"
		       "shipped but not enabled), and then opens no network socket itself.\n"
		       "Anyone who reaches it reads\n"
		       ".B /\n"
		       "(a status page without script: the live screen, awake or asleep, frame\n"
		       "rate, missed flips, screens, touch devices, the picture, uptime,\n"
		       "version, today\\(aqs touches, a chart of touches per hour for 7 days,\n"
		       "the map of touches),\n"
		       ".B /metrics\n"
		       "(Prometheus),\n"
		       ".BR /status.json ,\n"
		       ".B /screen.png\n"
		       "(a few per client address, then one every 2 s; 8 at once, then 4 a\n"
		       "second, from all addresses together; asked too often: 429 with\n"
		       ".BR Retry-After ),\n"
		       ".B /usage.csv\n"
		       "and\n"
		       ".BR /touches.png\n"
		       "(the state directory\\(aqs files, nothing else).\n"
		       "Other methods (405, with\n"
		       ".BR Allow )\n"
		       "and paths, bodies over 4 KiB, two different\n"
		       ".BR Content-Length s,\n"
		       "more than 64 connections (8 from one address, so a few busy addresses\n"
		       "leave room for a technician), clients quiet for 10 s or slower than 8 s\n"
		       "over a request\\(aqs headers, and connections older than a minute are\n"
		       "refused or closed, each counted in\n"
		       ".B ripple_kiosk_http_refused_total\n"
		       "and none logged.\n"
		       "A frame is copied for\n"
		       ".B /screen.png\n"
		       "only when one is asked for, and made a PNG on the server\\(aqs threads.",
	},
	{
		.name = "http-token-file", .group = GROUP_EXHIBIT, .type = OPTION_STRING,
		.arg = "FILE", .def_text = "none: no control",
		.example = "/etc/ripple-kiosk/http-token",
		.reload = RELOAD_RESTART, FIELD(http_token_file),
		.help = "its control calls (POST /reload ...) take the token in this file",
		.man = "With this file (a line of " STR(OPTIONS_HTTP_TOKEN_MIN)
		       " characters or more; "
		       "keep it readable by the\n"
		       "service alone)\n"
		       ".BR \"POST /reload\" ,\n"
		       ".BR /next-picture ,\n"
		       ".BR /sleep ,\n"
		       ".BR /wake ,\n"
		       ".B /rain\n"
		       "and\n"
		       ".B /calibrate\n"
		       "(the camera's, as\n"
		       ".B --camera-calibrate\n"
		       "does) act when they carry\n"
		       ".BR \"Authorization: Bearer \" \\fITOKEN\\fR\n"
		       "(the scheme in any case), compared in constant time; without it they are\n"
		       "refused.\n"
		       ".B /sleep\n"
		       "and\n"
		       ".B /wake\n"
		       "asked for close together: the last one wins.",
	},
	/* ---- speed ---- */
	{
		.name = "threads", .group = GROUP_SPEED, .type = OPTION_INT, .arg = "N",
		.min = 1, .max = WORKERS_MAX, .def_text = "one per online CPU", .example = "2",
		.reload = RELOAD_LIVE, FIELD(threads),
		.help = "threads for the water and the picture",
		.man = "Threads for the water and the rendering.",
	},
	/* ---- other ---- */
	{
		.name = "verbose", .short_name = 'v', .group = GROUP_OTHER, .type = OPTION_FLAG,
		.def = "no", .example = "yes",
		.reload = RELOAD_RESTART, FIELD(verbose),
		.help = "more messages",
		.man = "More messages.",
	},
	{
		.name = "help", .short_name = 'h', .cmdline = true, .group = GROUP_OTHER,
		.type = OPTION_HELP, .reload = RELOAD_RESTART,
		.help = "this text",
		.man = "Print the options and exit.",
	},
	{
		.name = "version", .short_name = 'V', .cmdline = true, .group = GROUP_OTHER,
		.type = OPTION_VERSION, .reload = RELOAD_RESTART,
		.help = "the version",
		.man = "Print the version and exit.",
	},
};

const size_t options_table_len = ARRAY_SIZE(options_table);
_Static_assert(ARRAY_SIZE(options_table) <= OPTIONS_ROWS_MAX, "room in the getopt table");
