#ifndef COMMITS_MIRROR_CCURL_SHIM_H
#define COMMITS_MIRROR_CCURL_SHIM_H

// Typed, non-variadic wrappers for libcurl's variadic calls: Swift cannot call
// C variadic functions, and one wrapper per argument type keeps each call checked.

#include <curl/curl.h>

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*ccurl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_data_function(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_xferinfo_function(CURL *handle, ccurl_xferinfo_callback value) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value);
}

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_double(CURL *handle, CURLINFO info, double *value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
