"""Pictures for the tests: 8-bit RGB images, their files (PNG, PPM, and the
16-bit PGMs of --output-heights), how two are compared, and the bounds the
tests judge a screendump by. Python 3 standard library only."""

import operator
import re
import struct
import zlib

# A touch seen on the screen: a stone's rings stay well inside a box of
# 2 NEAR px around the point for a second or two of the guest's time (about
# a cell per step); in it, a ring of a few tens of pixels changed by more
# than THRESHOLD in some channel is a fraction of a percent of the box, at
# least MOVED; a missed touch changes nothing at all.
NEAR = 160
THRESHOLD = 8
MOVED = 0.002
# A screendump against the headless render of the same picture (compare()):
# the water moves between the headless frame 0 and whatever frame is on the
# screen, so some difference is allowed. MAX_MEAN: mean absolute difference
# per channel (0..255); MAX_FRACTION: of the pixels differing by more than
# PICTURE_THRESHOLD in some channel.
MAX_MEAN = 12.0
MAX_FRACTION = 0.10
PICTURE_THRESHOLD = 48

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# --output-heights: a cell's height h is stored as h + HEIGHTS_ZERO
# (HEIGHTS_PGM_ZERO in src/service/heights.h).
HEIGHTS_ZERO = 32768


class Image:
    """8-bit RGB image: width, height, data (bytes, row-major, 3 per pixel)."""

    def __init__(self, width, height, data):
        if len(data) != width * height * 3:
            raise ValueError("image data size %d != %dx%dx3" % (len(data), width, height))
        self.width = width
        self.height = height
        self.data = bytes(data)

    @property
    def size(self):
        return (self.width, self.height)

    def pixel(self, x, y):
        i = (y * self.width + x) * 3
        return tuple(self.data[i:i + 3])

    def crop(self, x, y, w, h):
        rows = []
        for row in range(y, y + h):
            i = (row * self.width + x) * 3
            rows.append(self.data[i:i + w * 3])
        return Image(w, h, b"".join(rows))

    def save_png(self, path):
        write_png(path, self)

    def __repr__(self):
        return "<Image %dx%d>" % (self.width, self.height)


# -- files ---------------------------------------------------------------------

def _pnm_header(data, count):
    """The first count tokens of a PPM/PGM header (comments skipped), and
    where the samples start (one whitespace byte after maxval)."""
    tokens, i = [], 0
    while len(tokens) < count:
        while data[i:i + 1].isspace():
            i += 1
        if data[i:i + 1] == b"#":
            while data[i:i + 1] not in (b"\n", b""):
                i += 1
            continue
        j = i
        while not data[j:j + 1].isspace():
            j += 1
        tokens.append(data[i:j])
        i = j
    return tokens, i + 1


def read_ppm(path):
    """Read a binary PPM (P6, maxval 255), as QEMU's screendump writes."""
    with open(path, "rb") as f:
        data = f.read()
    (magic, w, h, maxval), start = _pnm_header(data, 4)
    if magic != b"P6" or int(maxval) != 255:
        raise ValueError("%s: not an 8-bit P6 PPM" % path)
    w, h = int(w), int(h)
    return Image(w, h, data[start:start + w * h * 3])


def write_ppm(path, img):
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (img.width, img.height))
        f.write(img.data)


def write_ppm_of(path, w, h, level):
    """A w x h picture made of level(x, y) -> (r, g, b) at each pixel, as PPM."""
    data = bytearray()
    for y in range(h):
        for x in range(w):
            data += bytes(level(x, y))
    write_ppm(path, Image(w, h, data))
    return path


def read_pgm(path):
    """(width, height, samples row by row) of a 16-bit binary PGM (P5,
    maxval 65535)."""
    with open(path, "rb") as f:
        data = f.read()
    (magic, w, h, maxval), start = _pnm_header(data, 4)
    if magic != b"P5" or int(maxval) != 65535:
        raise ValueError("%s: not a 16-bit P5 PGM" % path)
    w, h = int(w), int(h)
    if len(data) < start + 2 * w * h:
        raise ValueError("%s: %d bytes of samples, expected %d for %dx%d"
                         % (path, len(data) - start, 2 * w * h, w, h))
    return w, h, struct.unpack(">%dH" % (w * h), data[start:start + 2 * w * h])


def write_pgm8(path, w, h, data):
    """An 8-bit binary PGM of w x h bytes, row by row."""
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h) + bytes(data))


def read_pgm8(path):
    """(width, height, bytes) of an 8-bit binary PGM, as the kiosk writes
    its masks and recordings."""
    with open(path, "rb") as f:
        data = f.read()
    m = re.match(rb"P5\s+(\d+)\s+(\d+)\s+255\s", data)
    if not m:
        raise ValueError("%s: not an 8-bit P5 PGM" % path)
    w, h = int(m.group(1)), int(m.group(2))
    if len(data) < m.end() + w * h:
        raise ValueError("%s: %d bytes of samples, expected %d for %dx%d"
                         % (path, len(data) - m.end(), w * h, w, h))
    return w, h, data[m.end():m.end() + w * h]


def write_pgm(path, w, h, samples):
    """A 16-bit binary PGM of w x h samples (0..65535), row by row."""
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n65535\n" % (w, h))
        f.write(struct.pack(">%dH" % (w * h), *samples))


def read_heights(path):
    """(width, height, heights row by row) of --output-heights' file
    heights-NNNNN.pgm: a cell's height, signed."""
    w, h, v = read_pgm(path)
    return w, h, [x - HEIGHTS_ZERO for x in v]


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def png_chunks(data, name="PNG"):
    """The (type, body) of a PNG's chunks, each with its CRC checked, up to
    IEND, which must end the file: a file cut short or written over (a torn
    write) is a ValueError, not a picture."""
    if data[:8] != PNG_SIGNATURE:
        raise ValueError("%s: not a PNG" % name)
    pos, chunks = 8, []
    while pos + 12 <= len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body, crc = data[pos + 8:pos + 8 + length], data[pos + 8 + length:pos + 12 + length]
        if len(crc) != 4 or struct.unpack(">I", crc)[0] != zlib.crc32(ctype + body):
            raise ValueError("%s: chunk %r cut short or its CRC wrong" % (name, ctype))
        pos += 12 + length
        chunks.append((ctype, body))
        if ctype == b"IEND":
            if pos != len(data):
                raise ValueError("%s: %d bytes after IEND" % (name, len(data) - pos))
            return chunks
    raise ValueError("%s: no IEND" % name)


def png_whole(data):
    """Whether png_chunks() takes the bytes."""
    try:
        png_chunks(data)
    except ValueError:
        return False
    return True


def png_size(data, name="PNG"):
    """(width, height) of a whole PNG's bytes (png_chunks()), from its IHDR."""
    for ctype, body in png_chunks(data, name):
        if ctype == b"IHDR" and len(body) == 13:
            return struct.unpack(">II", body[:8])
    raise ValueError("%s: no IHDR" % name)


def decode_png(data, name="PNG"):
    """An 8-bit, non-interlaced grey/RGB/RGBA/palette PNG (its bytes) as an
    RGB Image (alpha dropped); name is what errors call it."""
    w, h, channels, out, palette = _png_samples(data, name)
    if palette is not None:
        rgb = bytearray(w * h * 3)
        for c in range(3):
            rgb[c::3] = out.translate(bytes(palette[c::3]).ljust(256, b"\0"))
        return Image(w, h, bytes(rgb))
    if channels == 3:
        rgb = bytes(out)
    else:
        rgb = bytearray(w * h * 3)
        if channels >= 3:
            for c in range(3):
                rgb[c::3] = out[c::channels]
        else:
            for c in range(3):
                rgb[c::3] = out[0::channels]
        rgb = bytes(rgb)
    return Image(w, h, rgb)


def decode_png_grey(data, name="PNG"):
    """(width, height, bytes) of an 8-bit grey or palette PNG's first
    channel (a palette's red): label pictures such as ground-truth masks,
    without the cost of RGB."""
    w, h, channels, out, palette = _png_samples(data, name)
    if palette is not None:
        return w, h, bytes(out.translate(bytes(palette[0::3]).ljust(256, b"\0")))
    return w, h, bytes(out[0::channels])


def _png_samples(data, name):
    """(width, height, channels, unfiltered samples, palette or None) of an
    8-bit non-interlaced PNG's bytes."""
    idat, ihdr, palette = [], None, None
    for ctype, body in png_chunks(data, name):
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"PLTE":
            palette = body
        elif ctype == b"IDAT":
            idat.append(body)
    if ihdr is None:
        raise ValueError("%s: no IHDR" % name)
    w, h, depth, ctype, _comp, _filt, interlace = ihdr
    channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}.get(ctype)
    if ctype == 3 and palette is None:
        raise ValueError("%s: a palette PNG without its palette" % name)
    if ctype != 3:
        palette = None
    if depth != 8 or channels is None or interlace:
        raise ValueError("%s: unsupported PNG (depth %d, colour type %d, interlace %d)"
                         % (name, depth, ctype, interlace))
    raw = zlib.decompress(b"".join(idat))
    bpp, stride = channels, w * channels
    out = bytearray(h * stride)
    prev = bytearray(stride)
    i = 0
    for y in range(h):
        ftype = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        if ftype == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 0xFF
        elif ftype == 2:
            line = bytearray(map(lambda a, b: (a + b) & 0xFF, line, prev))
        elif ftype == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + prev[x]) >> 1)) & 0xFF
        elif ftype == 4:
            for x in range(stride):
                if x >= bpp:
                    line[x] = (line[x] + _paeth(line[x - bpp], prev[x], prev[x - bpp])) & 0xFF
                else:
                    line[x] = (line[x] + prev[x]) & 0xFF
        elif ftype != 0:
            raise ValueError("%s: bad PNG filter %d" % (name, ftype))
        out[y * stride:(y + 1) * stride] = line
        prev = line
    return w, h, channels, out, palette


def read_png(path):
    """decode_png() of a file."""
    with open(path, "rb") as f:
        return decode_png(f.read(), path)


def write_png(path, img):
    """Write an RGB Image as PNG (for looking at screendumps)."""
    def chunk(t, body):
        return (struct.pack(">I", len(body)) + t + body +
                struct.pack(">I", zlib.crc32(t + body) & 0xFFFFFFFF))
    stride = img.width * 3
    raw = b"".join(b"\0" + img.data[y * stride:(y + 1) * stride]
                   for y in range(img.height))
    with open(path, "wb") as f:
        f.write(PNG_SIGNATURE)
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", img.width, img.height, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 6)))
        f.write(chunk(b"IEND", b""))


def beside(left, right, gap=16, gap_rgb=b"\xff\xff\xff", pad_rgb=b"\0\0\0"):
    """left and right side by side, tops aligned, gap px of gap_rgb between
    them; the shorter one's rows below it pad_rgb (the documents' pictures
    put together)."""
    h = max(left.height, right.height)

    def row(img, y):
        n = img.width * 3
        return img.data[y * n:(y + 1) * n] if y < img.height else pad_rgb * img.width
    return Image(left.width + gap + right.width, h, b"".join(
        row(left, y) + gap_rgb * gap + row(right, y) for y in range(h)))


def read_image(path):
    """PNG or PPM, by content."""
    with open(path, "rb") as f:
        magic = f.read(2)
    return read_png(path) if magic == PNG_SIGNATURE[:2] else read_ppm(path)


# -- comparisons (all on 8-bit RGB, fast paths through C-level builtins) ------

def _same_size(a, b):
    if a.size != b.size:
        raise ValueError("image sizes differ: %dx%d vs %dx%d" % (a.size + b.size))


def abs_diff_bytes(a, b):
    """Per-channel |a - b| as bytes."""
    _same_size(a, b)
    return bytes(map(abs, map(operator.sub, a.data, b.data)))


def mean_abs_diff(a, b):
    """Mean absolute per-channel difference, 0 (same) .. 255."""
    _same_size(a, b)
    if not a.data:
        return 0.0
    return sum(map(abs, map(operator.sub, a.data, b.data))) / len(a.data)


def _pixel_mask(channel_bytes, threshold):
    """bytes with 1 per pixel where any channel byte > threshold."""
    table = bytes(1 if v > threshold else 0 for v in range(256))
    flags = channel_bytes.translate(table)
    n = len(flags) // 3
    r = int.from_bytes(flags[0::3], "little")
    g = int.from_bytes(flags[1::3], "little")
    b = int.from_bytes(flags[2::3], "little")
    return (r | g | b).to_bytes(n, "little")


def diff_fraction(a, b, threshold=16):
    """Fraction of pixels where some channel differs by more than threshold."""
    mask = _pixel_mask(abs_diff_bytes(a, b), threshold)
    return (len(mask) - mask.count(0)) / max(len(mask), 1)


def region_diff(a, b, x, y, w, h):
    """mean_abs_diff of the same rectangle of both images."""
    return mean_abs_diff(a.crop(x, y, w, h), b.crop(x, y, w, h))


def region_changed(a, b, rect, threshold=8):
    """diff_fraction of a rectangle (x, y, w, h) of both images, clipped to
    them."""
    x, y, w, h = rect
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, a.width), min(y + h, a.height)
    return diff_fraction(a.crop(x0, y0, x1 - x0, y1 - y0),
                         b.crop(x0, y0, x1 - x0, y1 - y0), threshold)


def box(x, y, r):
    """The square of side 2r around (x, y), as (x, y, w, h)."""
    return (x - r, y - r, 2 * r, 2 * r)


def changed_centre(a, b, threshold=16):
    """Where b differs from a (a channel by more than threshold): the
    changed pixels' centre (x, y) and their share of the image; (None,
    None, 0.0) where nothing changed."""
    _same_size(a, b)
    n = sx = sy = 0
    stride = 3 * a.width
    for y in range(a.height):
        ra, rb = a.data[y * stride:(y + 1) * stride], b.data[y * stride:(y + 1) * stride]
        if ra == rb:
            continue
        for x in range(a.width):
            i = 3 * x
            if max(abs(ra[i + c] - rb[i + c]) for c in range(3)) > threshold:
                n += 1
                sx += x
                sy += y
    if n == 0:
        return None, None, 0.0
    return sx / n, sy / n, n / float(a.width * a.height)


def nonblack_fraction(img, threshold=16):
    """Fraction of pixels with some channel above threshold."""
    mask = _pixel_mask(img.data, threshold)
    return (len(mask) - mask.count(0)) / max(len(mask), 1)


def is_not_black(img, threshold=16, min_fraction=0.05):
    """True when at least min_fraction of the pixels are visibly not black."""
    return nonblack_fraction(img, threshold) >= min_fraction


def mean_color(img):
    n = img.width * img.height or 1
    return tuple(sum(img.data[c::3]) / n for c in range(3))


def compare(shot, ref, max_mean=8.0, max_fraction=0.05, threshold=32):
    """Compare a screendump with a reference image (PNG/PPM path or Image).
    Returns (ok, description)."""
    if isinstance(ref, str):
        ref = read_image(ref)
    if shot.size != ref.size:
        return False, "size %dx%d, expected %dx%d" % (shot.size + ref.size)
    mad = mean_abs_diff(shot, ref)
    frac = diff_fraction(shot, ref, threshold)
    ok = mad <= max_mean and frac <= max_fraction
    return ok, "mean abs diff %.2f (max %.2f), %.2f%% pixels differ by >%d (max %.2f%%)" % (
        mad, max_mean, 100 * frac, threshold, 100 * max_fraction)
