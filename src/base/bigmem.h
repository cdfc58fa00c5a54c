/*
 * Frame-sized buffers: height planes, pictures, frames. Every frame walks
 * all of them, so they ask for transparent huge pages.
 */
#ifndef BIGMEM_H
#define BIGMEM_H

#include <stddef.h>

/* Uninitialised; NULL with errno set on failure. Free with free(). */
void *bigmem_alloc(size_t bytes);
/* Zeroed; n * size must not overflow (NULL and EOVERFLOW if it would). */
void *bigmem_calloc(size_t n, size_t size);

#endif
