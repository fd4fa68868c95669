#ifndef COMMITS_MIRROR_CZLIB_SHIM_H
#define COMMITS_MIRROR_CZLIB_SHIM_H

// inflateInit2 is a macro over inflateInit2_; Swift needs a real function.

#include <zlib.h>

static inline int czlib_inflate_init_gzip(z_stream *stream) {
    // 15 window bits + 32: detect gzip or zlib headers automatically.
    return inflateInit2(stream, 15 + 32);
}

static inline int czlib_deflate_init_gzip(z_stream *stream, int level) {
    // 15 window bits + 16: write a gzip header.
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}

static inline int czlib_inflate_init_zlib(z_stream *stream) {
    // A zlib header and checksum, as git stores every object.
    return inflateInit(stream);
}

static inline int czlib_deflate_init_zlib(z_stream *stream, int level) {
    return deflateInit(stream, level);
}

#endif
