#ifndef COMMITS_MIRROR_CCURL_H
#define COMMITS_MIRROR_CCURL_H

// libcurl, loaded on first use. The binaries do not link libcurl: it and the
// forty-odd libraries it needs (TLS, HTTP/2, IDN, LDAP, Kerberos …) would be
// mapped at every start, and most commands never make a request. ccurl_load()
// dlopens libcurl.so.4 once; every other function here calls it first, then
// forwards to libcurl. Typed, non-variadic wrappers stand in for libcurl's
// variadic calls, which Swift cannot make: one per argument type keeps each call
// checked. The header only borrows curl.h's types and constants.

#include <curl/curl.h>

typedef size_t (*ccurl_data_callback)(char *data, size_t size, size_t count, void *userdata);
typedef int (*ccurl_xferinfo_callback)(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);

/// Loads libcurl and runs curl_global_init, once per process, thread-safely.
/// NULL when libcurl is usable; otherwise why it is not (dlerror's text).
const char *ccurl_load(void);

/// Starts ccurl_load() on a detached thread of its own and returns at once, so
/// that loading overlaps other work; the first call that needs libcurl waits for
/// it. Does nothing more if the thread cannot be started: that call loads it.
void ccurl_load_in_background(void);

CURL *ccurl_easy_init(void);
void ccurl_easy_cleanup(CURL *handle);
CURLcode ccurl_easy_perform(CURL *handle);
const char *ccurl_easy_strerror(CURLcode code);
struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *line);
void ccurl_slist_free_all(struct curl_slist *list);

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode ccurl_easy_setopt_data_function(CURL *handle, CURLoption option, ccurl_data_callback value);
CURLcode ccurl_easy_setopt_xferinfo_function(CURL *handle, ccurl_xferinfo_callback value);
CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
