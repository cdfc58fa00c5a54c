/* The fitting page and its script (src/http/fit.html, src/http/fit.js),
 * compiled in by the build (http-fit-files.c, made from them): nothing is
 * read at run time, nothing fetched from elsewhere. */
#ifndef HTTP_HTTP_FIT_FILES_H
#define HTTP_HTTP_FIT_FILES_H

#include <stddef.h>

extern const unsigned char http_fit_html[];
extern const size_t http_fit_html_len;
extern const unsigned char http_fit_js[];
extern const size_t http_fit_js_len;

#endif
