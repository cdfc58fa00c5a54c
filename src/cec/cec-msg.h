/*
 * CEC messages as bytes on the bus (HDMI 1.4b CEC, and 2.0): the header
 * (initiator and destination, a nibble each), the opcode, its operands. Pure
 * code: the adapter file copies a frame into the kernel's struct cec_msg.
 * The names are the spec's; they are not linux/cec.h's, which the adapter
 * file includes alongside.
 */
#ifndef CEC_CEC_MSG_H
#define CEC_CEC_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A header and at most 15 bytes of opcode and operands. */
#define CEC_FRAME_MAX 16

/* Logical addresses: the TV is always 0; 15 is the broadcast destination
 * (and the unregistered initiator). */
#define CEC_ADDR_TV 0
#define CEC_ADDR_BROADCAST 15
/* A physical address a.b.c.d as 0xabcd; f.f.f.f is none (HPD low, no EDID). */
#define CEC_PA_NONE 0xffff
/* The buffer cec_pa_text() fills: "f.f.f.f". */
#define CEC_PA_TEXT_LEN 8

enum cec_opcode {
	CEC_OPCODE_FEATURE_ABORT = 0x00,
	CEC_OPCODE_IMAGE_VIEW_ON = 0x04,
	CEC_OPCODE_TEXT_VIEW_ON = 0x0d,
	CEC_OPCODE_STANDBY = 0x36,
	CEC_OPCODE_ROUTING_CHANGE = 0x80,
	CEC_OPCODE_ACTIVE_SOURCE = 0x82,
	CEC_OPCODE_REPORT_PHYSICAL_ADDR = 0x84,
	CEC_OPCODE_REQUEST_ACTIVE_SOURCE = 0x85,
	CEC_OPCODE_SET_STREAM_PATH = 0x86,
	CEC_OPCODE_DEVICE_VENDOR_ID = 0x87,
	CEC_OPCODE_GIVE_DEVICE_POWER_STATUS = 0x8f,
	CEC_OPCODE_REPORT_POWER_STATUS = 0x90,
	CEC_OPCODE_INACTIVE_SOURCE = 0x9d,
	CEC_OPCODE_CEC_VERSION = 0x9e,
	CEC_OPCODE_SET_OSD_NAME = 0x47,
	CEC_OPCODE_REPORT_FEATURES = 0xa6,
	CEC_OPCODE_ABORT = 0xff,
};

/* [Power Status]: the TV's, and ours. */
enum cec_power {
	CEC_POWER_ON = 0,
	CEC_POWER_STANDBY = 1,
	CEC_POWER_TO_ON = 2,          /* in transition standby to on */
	CEC_POWER_TO_STANDBY = 3,     /* in transition on to standby */
};

/* [Abort Reason] of a Feature Abort. */
enum cec_abort_reason {
	CEC_ABORT_UNRECOGNIZED = 0,
	CEC_ABORT_REFUSED = 4,
};

struct cec_frame {
	uint8_t len;                  /* 1 (a poll: the header alone) to CEC_FRAME_MAX */
	uint8_t b[CEC_FRAME_MAX];
};

static inline unsigned cec_frame_from(const struct cec_frame *f)
{
	return f->b[0] >> 4;
}

static inline unsigned cec_frame_to(const struct cec_frame *f)
{
	return f->b[0] & 0xf;
}

static inline bool cec_frame_broadcast(const struct cec_frame *f)
{
	return cec_frame_to(f) == CEC_ADDR_BROADCAST;
}

/* The opcode, or -1 for a poll (no opcode). */
static inline int cec_frame_opcode(const struct cec_frame *f)
{
	return f->len >= 2 ? f->b[1] : -1;
}

/* The messages the kiosk sends, from la to to (Active Source and Report
 * Power Status's broadcast form go to CEC_ADDR_BROADCAST). */
void cec_msg_standby(struct cec_frame *f, unsigned la, unsigned to);
void cec_msg_image_view_on(struct cec_frame *f, unsigned la, unsigned to);
void cec_msg_active_source(struct cec_frame *f, unsigned la, uint16_t pa);
void cec_msg_give_power_status(struct cec_frame *f, unsigned la, unsigned to);
void cec_msg_report_power_status(struct cec_frame *f, unsigned la, unsigned to,
				 enum cec_power power);
/* The answer to the message got: Feature Abort [opcode] [reason], to its
 * initiator. */
void cec_msg_feature_abort(struct cec_frame *f, const struct cec_frame *got, unsigned la,
			   enum cec_abort_reason reason);

/* Report Power Status's operand into *power: 0, or -EINVAL when the frame
 * is not one or its operand is none the spec names. */
int cec_msg_power_status(const struct cec_frame *f, enum cec_power *power);
/* A physical address operand (Active Source, Set Stream Path, Routing
 * Change's new one, Report Physical Address) at byte at: 0 or -EINVAL. */
int cec_msg_pa(const struct cec_frame *f, size_t at, uint16_t *pa);

/* "1.0.0.0", "f.f.f.f". */
const char *cec_pa_text(uint16_t pa, char buf[CEC_PA_TEXT_LEN]);
/* "on", "standby", "turning on", "going to standby". */
const char *cec_power_name(enum cec_power p);
/* The opcode's name in the spec ("Image View On"), or "opcode 0xNN" in buf. */
const char *cec_opcode_name(int opcode, char *buf, size_t len);

#endif
