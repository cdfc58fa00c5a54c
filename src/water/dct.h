/*
 * Cosine transforms of a plane: the pond's waves are kept as the
 * coefficients of cosines that fit the pond (water/pond.c), since a cosine
 * series has zero slope at the edges, the way a wall reflects a wave.
 */
#ifndef WATER_DCT_H
#define WATER_DCT_H

struct dct2d;

/* Transforms of w x h float planes (row stride w). NULL (errno set) when
 * memory is short or the size is out of range. */
struct dct2d *dct2d_create(int w, int h);
void dct2d_destroy(struct dct2d *d);

/* A plane of w x h floats aligned as the transforms want it, zeroed; free
 * with dct2d_free(). NULL when memory is short. */
float *dct2d_alloc(const struct dct2d *d);
void dct2d_free(float *plane);

/*
 * Coefficients to the values at the cells' centres, in place:
 *   v[y][x] = sum over n, m of wn * wm * c[n][m] * cos(pi m (x + 1/2) / w)
 *                                                * cos(pi n (y + 1/2) / h)
 * with the weight w0 = 1 and wm = 2 for m > 0 (each cosine is counted once
 * for each sign of its wavenumber).
 */
void dct2d_inverse(struct dct2d *d, float *plane);
/*
 * The inverse cut for threads: DCT2D_PASSES passes, one after the other;
 * each pass in any number of bands, which may run at once on different
 * threads (each band touches only its own rows/columns of plane and of
 * the transform's scratch, never another band's); every band of a pass
 * must end before any band of the next begins. The result is the same,
 * bit for bit, as dct2d_inverse()'s, whatever the bands.
 * bands >= 1 and 0 <= band < bands (other values do nothing); a band may
 * be empty when there are more bands than work. From the first pass to
 * the last the dct2d's buffers hold the transform: no other transform
 * with it meanwhile. dct2d_inverse() is the passes in one band each.
 */
#define DCT2D_PASSES 2
void dct2d_inverse_band(struct dct2d *d, float *plane, int pass, int band, int bands);
/* The same with the coefficients read from coef (the first pass reads
 * them, nothing writes them) and the values left in plane: no copy of the
 * coefficients first, where they must stay. The same numbers. */
void dct2d_inverse_band_from(struct dct2d *d, const float *coef, float *plane, int pass,
			     int band, int bands);
/* Values to coefficients, in place: dct2d_inverse() gives the values back
 * (to rounding). */
void dct2d_forward(struct dct2d *d, float *plane);

#endif
