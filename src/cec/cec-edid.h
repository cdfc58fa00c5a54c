/*
 * The CEC physical address a screen gives the source on its input, read
 * from the screen's EDID (HDMI 1.4 section 8.6): what an adapter whose
 * driver cannot see the EDID (a USB adapter beside the GPU's HDMI port)
 * must be told. Pure code.
 */
#ifndef CEC_CEC_EDID_H
#define CEC_CEC_EDID_H

#include <stddef.h>
#include <stdint.h>

/* An EDID's blocks: 128 bytes each, at most 256 of them (E-EDID). */
#define CEC_EDID_BLOCK 128
#define CEC_EDID_MAX (256 * CEC_EDID_BLOCK)

/*
 * The physical address in the HDMI Vendor-Specific Data Block of the first
 * CTA-861 extension that has one, in the len bytes of edid. A block whose
 * checksum is wrong is not read (the next CTA-861 one may still hold it).
 * The address (0xabcd for a.b.c.d), or -ENOENT: no such block (a DVI or
 * DisplayPort screen, or an EDID without a CTA-861 extension); -EINVAL:
 * not an EDID, or none found and something in it was damaged (a checksum,
 * a length, a count of extensions past its end, an address that cannot
 * be one).
 */
int cec_edid_pa(const uint8_t *edid, size_t len);

#endif
