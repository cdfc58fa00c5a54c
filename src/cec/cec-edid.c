/*
 * The physical address in an EDID. The layout (VESA E-EDID, CTA-861-G
 * section 7.5, HDMI 1.4 section 8.3.2):
 *
 *   every block: 128 bytes whose sum is 0 mod 256
 *   block 0:     the header 00 ff ff ff ff ff ff 00, byte 126 the number
 *                of extension blocks after it
 *   extension:   byte 0 its tag. With more than one extension, EDID 1.3
 *                puts block maps (tag 0xf0) among them: blocks are looked
 *                at by their own tag, so the maps are passed over.
 *   CTA-861:     tag 0x02, byte 1 its revision (data blocks from 3 on),
 *                byte 2 the offset d of its first detailed timing; the
 *                data blocks fill bytes 4 to d - 1, each a header byte
 *                (tag in bits 7-5, payload length in bits 4-0) and its
 *                payload
 *   HDMI VSDB:   data block tag 3, payload the IEEE OUI 00-0C-03 (least
 *                significant byte first: 03 0c 00), then the physical
 *                address a.b.c.d as the bytes ab cd
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "cec/cec-edid.h"
#include "cec/cec-msg.h"

static const uint8_t edid_header[] = { 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00 };
#define EDID_EXTENSIONS_AT 126

#define CTA_TAG 0x02
#define CTA_REVISION_DATA_BLOCKS 3
#define CTA_REVISION_AT 1
#define CTA_DTD_OFFSET_AT 2
#define CTA_DATA_BLOCKS_AT 4
/* The last byte is the checksum: no timing or data block reaches it. */
#define CTA_CHECKSUM_AT (CEC_EDID_BLOCK - 1)

#define DB_TAG_SHIFT 5
#define DB_LEN_MASK 0x1f
#define DB_TAG_VENDOR 3
static const uint8_t hdmi_oui[] = { 0x03, 0x0c, 0x00 };
/* The OUI, then the address's two bytes. */
#define VSDB_PA_AT 3
#define VSDB_LEN_MIN (VSDB_PA_AT + 2)

#define PA_NIBBLES 4
#define NIBBLE_BITS 4
#define NIBBLE_MASK 0xf

static bool sums_to_zero(const uint8_t *block)
{
	uint8_t sum = 0;

	for (int i = 0; i < CEC_EDID_BLOCK; i++)
		sum = (uint8_t)(sum + block[i]);
	return sum == 0;
}

/* a.b.c.d with no digit after a 0 but 0 (a device below an address that
 * ends there), and not the root's 0.0.0.0: a source is never the TV. */
static bool pa_valid(uint16_t pa)
{
	bool ended = false;

	if (pa == 0 || pa == CEC_PA_NONE)
		return false;
	for (int i = PA_NIBBLES - 1; i >= 0; i--) {
		unsigned nibble = (pa >> (i * NIBBLE_BITS)) & NIBBLE_MASK;

		if (ended && nibble)
			return false;
		ended = nibble == 0;
	}
	return true;
}

/* One CTA-861 block: the address, -ENOENT (none in it) or -EINVAL. */
static int cta_pa(const uint8_t *b)
{
	unsigned end = b[CTA_DTD_OFFSET_AT];
	unsigned i = CTA_DATA_BLOCKS_AT;

	if (b[CTA_REVISION_AT] < CTA_REVISION_DATA_BLOCKS || end == 0)
		return -ENOENT;
	if (end < CTA_DATA_BLOCKS_AT || end > CTA_CHECKSUM_AT)
		return -EINVAL;
	while (i < end) {
		unsigned tag = b[i] >> DB_TAG_SHIFT, len = b[i] & DB_LEN_MASK;
		const uint8_t *p = b + i + 1;

		/* A payload running past the collection: nothing after it
		 * can be trusted to start where it says. */
		if (i + 1 + len > end)
			return -EINVAL;
		if (tag == DB_TAG_VENDOR && len >= VSDB_LEN_MIN &&
		    p[0] == hdmi_oui[0] && p[1] == hdmi_oui[1] && p[2] == hdmi_oui[2]) {
			uint16_t pa = (uint16_t)(p[VSDB_PA_AT] << 8 | p[VSDB_PA_AT + 1]);

			return pa_valid(pa) ? pa : -EINVAL;
		}
		i += 1 + len;
	}
	return -ENOENT;
}

int cec_edid_pa(const uint8_t *edid, size_t len)
{
	size_t blocks, present = len / CEC_EDID_BLOCK;
	bool damaged = false;

	if (present < 1 || memcmp(edid, edid_header, sizeof(edid_header)) != 0 ||
	    !sums_to_zero(edid))
		return -EINVAL;
	blocks = 1 + (size_t)edid[EDID_EXTENSIONS_AT];
	if (blocks > present) {
		damaged = true;
		blocks = present;
	}
	for (size_t k = 1; k < blocks; k++) {
		const uint8_t *b = edid + k * CEC_EDID_BLOCK;
		int ret;

		if (b[0] != CTA_TAG)
			continue;
		if (!sums_to_zero(b)) {
			damaged = true;
			continue;
		}
		ret = cta_pa(b);
		if (ret >= 0)
			return ret;
		damaged |= ret == -EINVAL;
	}
	return damaged ? -EINVAL : -ENOENT;
}
