#include "ccurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The soname of libcurl 7.x and 8.x (Debian's libcurl4 package).
#define CCURL_LIBRARY "libcurl.so.4"

static struct {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *handle);
    CURLcode (*easy_perform)(CURL *handle);
    const char *(*easy_strerror)(CURLcode code);
    CURLcode (*easy_setopt)(CURL *handle, CURLoption option, ...);
    CURLcode (*easy_getinfo)(CURL *handle, CURLINFO info, ...);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *line);
    void (*slist_free_all)(struct curl_slist *list);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static int resolve(void *library, void **slot, const char *name) {
    *slot = dlsym(library, name);
    if (*slot == NULL) {
        snprintf(load_error, sizeof load_error, "%s has no %s", CCURL_LIBRARY, name);
        return 0;
    }
    return 1;
}

static void load(void) {
    void *library = dlopen(CCURL_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
    if (!(resolve(library, (void **)&curl.global_init, "curl_global_init")
          && resolve(library, (void **)&curl.easy_init, "curl_easy_init")
          && resolve(library, (void **)&curl.easy_cleanup, "curl_easy_cleanup")
          && resolve(library, (void **)&curl.easy_perform, "curl_easy_perform")
          && resolve(library, (void **)&curl.easy_strerror, "curl_easy_strerror")
          && resolve(library, (void **)&curl.easy_setopt, "curl_easy_setopt")
          && resolve(library, (void **)&curl.easy_getinfo, "curl_easy_getinfo")
          && resolve(library, (void **)&curl.slist_append, "curl_slist_append")
          && resolve(library, (void **)&curl.slist_free_all, "curl_slist_free_all"))) {
        return;
    }
    // curl_global_init is not thread-safe: here it runs exactly once, under pthread_once.
    CURLcode code = curl.global_init(CURL_GLOBAL_ALL);
    if (code != CURLE_OK) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed (code %d)", (int)code);
    }
}

const char *ccurl_load(void) {
    pthread_once(&load_once, load);
    return load_error[0] ? load_error : NULL;
}

static void *load_on_thread(void *unused) {
    (void)unused;
    ccurl_load();
    return NULL;
}

void ccurl_load_in_background(void) {
    pthread_attr_t attributes;
    if (pthread_attr_init(&attributes) != 0) return;
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    (void)pthread_create(&thread, &attributes, load_on_thread, NULL);
    pthread_attr_destroy(&attributes);
}

// Every entry point loads first; without libcurl each fails the way libcurl
// itself reports failure (NULL, CURLE_FAILED_INIT), never by a crash.
#define CCURL_READY() (ccurl_load() == NULL)

CURL *ccurl_easy_init(void) { return CCURL_READY() ? curl.easy_init() : NULL; }

void ccurl_easy_cleanup(CURL *handle) {
    if (CCURL_READY()) curl.easy_cleanup(handle);
}

CURLcode ccurl_easy_perform(CURL *handle) { return CCURL_READY() ? curl.easy_perform(handle) : CURLE_FAILED_INIT; }

const char *ccurl_easy_strerror(CURLcode code) {
    return CCURL_READY() ? curl.easy_strerror(code) : "libcurl could not be loaded";
}

struct curl_slist *ccurl_slist_append(struct curl_slist *list, const char *line) {
    return CCURL_READY() ? curl.slist_append(list, line) : NULL;
}

void ccurl_slist_free_all(struct curl_slist *list) {
    if (CCURL_READY()) curl.slist_free_all(list);
}

CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return CCURL_READY() ? curl.easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return CCURL_READY() ? curl.easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return CCURL_READY() ? curl.easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return CCURL_READY() ? curl.easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_easy_setopt_data_function(CURL *handle, CURLoption option, ccurl_data_callback value) {
    return CCURL_READY() ? curl.easy_setopt(handle, option, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_easy_setopt_xferinfo_function(CURL *handle, ccurl_xferinfo_callback value) {
    return CCURL_READY() ? curl.easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, value) : CURLE_FAILED_INIT;
}

CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return CCURL_READY() ? curl.easy_getinfo(handle, info, value) : CURLE_FAILED_INIT;
}
