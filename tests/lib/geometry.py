"""Plane geometry for the projectors' tests and pictures, computed here and
not with the kiosk's code: the homography taking four points to four, by
an 8x8 solve."""


def solve(a, b):
    """a x = b by Gaussian elimination with partial pivoting."""
    n = len(b)
    m = [list(row) + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def homography(src, dst):
    """The 3x3 (row major, h33 = 1) taking the four src points to dst."""
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        b.append(u)
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.append(v)
    return solve(a, b) + [1.0]


def apply(h, x, y):
    """(x, y) through h."""
    w = h[6] * x + h[7] * y + h[8]
    return (h[0] * x + h[1] * y + h[2]) / w, (h[3] * x + h[4] * y + h[5]) / w


def area(c):
    """A polygon's area by the shoelace formula (clockwise, y down: positive)."""
    n = len(c)
    return sum(c[i][0] * c[(i + 1) % n][1] - c[(i + 1) % n][0] * c[i][1] for i in range(n)) / 2


def corners(w, h):
    """A w x h picture's corners, clockwise from the top left."""
    return [(0, 0), (w, 0), (w, h), (0, h)]
