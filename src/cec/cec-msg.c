/* The bytes of the CEC messages the kiosk sends and reads (cec-msg.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "base/util.h"
#include "cec/cec-msg.h"

#define NIBBLE 4
#define NIBBLE_MASK 0xf
#define BYTE_BITS 8
#define BYTE_MASK 0xff
/* A physical address's four digits. */
#define PA_DIGITS 4

static void header(struct cec_frame *f, unsigned from, unsigned to, uint8_t opcode)
{
	*f = (struct cec_frame){ .len = 2 };
	f->b[0] = (uint8_t)(((from & NIBBLE_MASK) << NIBBLE) | (to & NIBBLE_MASK));
	f->b[1] = opcode;
}

static void add_pa(struct cec_frame *f, uint16_t pa)
{
	f->b[f->len++] = (uint8_t)(pa >> BYTE_BITS);
	f->b[f->len++] = (uint8_t)(pa & BYTE_MASK);
}

void cec_msg_standby(struct cec_frame *f, unsigned la, unsigned to)
{
	header(f, la, to, CEC_OPCODE_STANDBY);
}

void cec_msg_image_view_on(struct cec_frame *f, unsigned la, unsigned to)
{
	header(f, la, to, CEC_OPCODE_IMAGE_VIEW_ON);
}

void cec_msg_active_source(struct cec_frame *f, unsigned la, uint16_t pa)
{
	header(f, la, CEC_ADDR_BROADCAST, CEC_OPCODE_ACTIVE_SOURCE);
	add_pa(f, pa);
}

void cec_msg_give_power_status(struct cec_frame *f, unsigned la, unsigned to)
{
	header(f, la, to, CEC_OPCODE_GIVE_DEVICE_POWER_STATUS);
}

void cec_msg_report_power_status(struct cec_frame *f, unsigned la, unsigned to,
				 enum cec_power power)
{
	header(f, la, to, CEC_OPCODE_REPORT_POWER_STATUS);
	f->b[f->len++] = (uint8_t)power;
}

void cec_msg_feature_abort(struct cec_frame *f, const struct cec_frame *got, unsigned la,
			   enum cec_abort_reason reason)
{
	header(f, la, cec_frame_from(got), CEC_OPCODE_FEATURE_ABORT);
	f->b[f->len++] = (uint8_t)cec_frame_opcode(got);
	f->b[f->len++] = (uint8_t)reason;
}

int cec_msg_power_status(const struct cec_frame *f, enum cec_power *power)
{
	if (cec_frame_opcode(f) != CEC_OPCODE_REPORT_POWER_STATUS || f->len < 3 ||
	    f->b[2] > CEC_POWER_TO_STANDBY)
		return -EINVAL;
	*power = (enum cec_power)f->b[2];
	return 0;
}

int cec_msg_pa(const struct cec_frame *f, size_t at, uint16_t *pa)
{
	if (at < 2 || at + 2 > f->len)
		return -EINVAL;
	*pa = (uint16_t)(f->b[at] << BYTE_BITS | f->b[at + 1]);
	return 0;
}

const char *cec_pa_text(uint16_t pa, char buf[CEC_PA_TEXT_LEN])
{
	unsigned d[PA_DIGITS];

	for (int i = 0; i < PA_DIGITS; i++)
		d[i] = (pa >> (NIBBLE * (PA_DIGITS - 1 - i))) & NIBBLE_MASK;
	snprintf(buf, CEC_PA_TEXT_LEN, "%x.%x.%x.%x", d[0], d[1], d[2], d[3]);
	return buf;
}

const char *cec_power_name(enum cec_power p)
{
	switch (p) {
	case CEC_POWER_ON:
		return "on";
	case CEC_POWER_STANDBY:
		return "standby";
	case CEC_POWER_TO_ON:
		return "turning on";
	case CEC_POWER_TO_STANDBY:
		return "going to standby";
	}
	return "?";
}

const char *cec_opcode_name(int opcode, char *buf, size_t len)
{
	static const struct {
		int opcode;
		const char *name;
	} names[] = {
		{ -1, "Polling Message" },
		{ CEC_OPCODE_FEATURE_ABORT, "Feature Abort" },
		{ CEC_OPCODE_IMAGE_VIEW_ON, "Image View On" },
		{ CEC_OPCODE_TEXT_VIEW_ON, "Text View On" },
		{ CEC_OPCODE_STANDBY, "Standby" },
		{ CEC_OPCODE_ROUTING_CHANGE, "Routing Change" },
		{ CEC_OPCODE_ACTIVE_SOURCE, "Active Source" },
		{ CEC_OPCODE_REQUEST_ACTIVE_SOURCE, "Request Active Source" },
		{ CEC_OPCODE_SET_STREAM_PATH, "Set Stream Path" },
		{ CEC_OPCODE_GIVE_DEVICE_POWER_STATUS, "Give Device Power Status" },
		{ CEC_OPCODE_REPORT_POWER_STATUS, "Report Power Status" },
		{ CEC_OPCODE_INACTIVE_SOURCE, "Inactive Source" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (names[i].opcode == opcode)
			return names[i].name;
	snprintf(buf, len, "opcode 0x%02x", (unsigned)opcode & BYTE_MASK);
	return buf;
}
