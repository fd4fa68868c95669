// The row-by-row message test of a SQLite store's `--grep` (MessageSearch.swift):
// a scan of the commits the message index does not cover yet, and the test of
// walks that stop at a limit. In C because SQLite's own building blocks for it
// (lower() and replace() copying each message, GLOB re-reading it at every
// position when the pattern opens with a bracket) took 10-20 ns a byte, and a
// search may read tens of megabytes of messages.

#include "message_search.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/// A pattern read once per statement (SQLite keeps it with the argument).
typedef struct {
    uint32_t length;        // scalars in the needle
    uint32_t *offsets;      // length + 1 offsets into forms
    uint32_t *forms;        // every scalar's forms, one after another
    /// The bytes a match can start at: the first scalar's ASCII forms, and when
    /// it has others, every byte SQLite reads a scalar beyond ASCII from (a
    /// lead byte; a stray continuation byte reads as itself, U+0080-U+00BF).
    unsigned char starts[256];
} Pattern;

static void pattern_free(void *pointer) {
    Pattern *pattern = pointer;
    if (!pattern) return;
    free(pattern->offsets);
    free(pattern->forms);
    free(pattern);
}

static uint32_t word_at(const unsigned char *bytes, size_t index) {
    uint32_t word;
    memcpy(&word, bytes + index * 4, 4); // a blob's bytes need not be aligned
    return word;
}

/// NULL when the blob is not a well-formed pattern or memory ran out (`*malformed` says which).
static Pattern *pattern_read(const unsigned char *bytes, int size, int *malformed) {
    *malformed = 1;
    if (!bytes || size < 4 || size % 4 != 0) return NULL;
    size_t words = (size_t)size / 4;
    uint32_t length = word_at(bytes, 0);
    size_t next = 1;
    for (uint32_t scalar = 0; scalar < length; scalar++) {
        if (next >= words) return NULL;
        uint32_t count = word_at(bytes, next++);
        if (count == 0 || count > words - next) return NULL;
        next += count;
    }
    if (next != words) return NULL;
    *malformed = 0;
    Pattern *pattern = calloc(1, sizeof(Pattern));
    if (!pattern) return NULL;
    pattern->length = length;
    pattern->offsets = malloc(sizeof(uint32_t) * ((size_t)length + 1));
    pattern->forms = malloc(sizeof(uint32_t) * words);
    if (!pattern->offsets || !pattern->forms) {
        pattern_free(pattern);
        return NULL;
    }
    next = 1;
    uint32_t stored = 0;
    pattern->offsets[0] = 0;
    for (uint32_t scalar = 0; scalar < length; scalar++) {
        uint32_t count = word_at(bytes, next++);
        for (uint32_t form = 0; form < count; form++) {
            uint32_t value = word_at(bytes, next++);
            pattern->forms[stored++] = value;
            if (scalar > 0) continue;
            if (value < 0x80) {
                pattern->starts[value] = 1;
            } else {
                memset(pattern->starts + 0xC0, 1, 0x40);
                if (value < 0xC0) memset(pattern->starts + 0x80, 1, 0x40);
            }
        }
        pattern->offsets[scalar + 1] = stored;
    }
    return pattern;
}

/// sqlite3Utf8Read's reading of one scalar, bounded by `end`: a lead byte and
/// the continuation bytes after it; overlong forms and surrogates read as
/// U+FFFD, a stray continuation byte as itself. (SQLite also reads U+FFFE and
/// U+FFFF as U+FFFD: a pattern's forms of U+FFFD list them, MessageNeedle.)
static inline uint32_t read_scalar(const unsigned char **cursor, const unsigned char *end) {
    static const unsigned char leadBits[64] = {
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
        0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
        0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x00, 0x01, 0x02, 0x03, 0x00, 0x01, 0x00, 0x00,
    };
    uint32_t c = *(*cursor)++;
    if (c >= 0xC0) {
        c = leadBits[c - 0xC0];
        while (*cursor < end && (**cursor & 0xC0) == 0x80) c = (c << 6) + (0x3F & *(*cursor)++);
        if (c < 0x80 || (c & 0xFFFFF800) == 0xD800) c = 0xFFFD;
    }
    return c;
}

static inline int has_form(const Pattern *pattern, uint32_t scalar, uint32_t value) {
    for (uint32_t form = pattern->offsets[scalar]; form < pattern->offsets[scalar + 1]; form++) {
        if (pattern->forms[form] == value) return 1;
    }
    return 0;
}

static int contains(const Pattern *pattern, const unsigned char *text, const unsigned char *end) {
    if (pattern->length == 0) return 1;
    const unsigned char *cursor = text;
    for (;;) {
        // An ASCII byte is always a scalar of its own, so bytes no match starts at are skipped
        // one by one without losing SQLite's reading of the scalars around them.
        while (cursor < end && !pattern->starts[*cursor]) cursor++;
        if (cursor >= end) return 0;
        if (!has_form(pattern, 0, read_scalar(&cursor, end))) continue;
        // The first scalar matches and ends at `cursor`: the rest must follow it.
        const unsigned char *rest = cursor;
        uint32_t scalar = 1;
        while (scalar < pattern->length && rest < end && has_form(pattern, scalar, read_scalar(&rest, end))) scalar++;
        if (scalar == pattern->length) return 1;
    }
}

void cm_message_contains(sqlite3_context *context, int argc, sqlite3_value **argv) {
    if (argc != 2 || sqlite3_value_type(argv[0]) == SQLITE_NULL || sqlite3_value_type(argv[1]) == SQLITE_NULL) {
        sqlite3_result_null(context);
        return;
    }
    // Read once per statement: SQLite keeps it with the argument while the argument stays the same.
    Pattern *pattern = sqlite3_get_auxdata(context, 1);
    int readHere = 0;
    if (!pattern) {
        int malformed;
        pattern = pattern_read(sqlite3_value_blob(argv[1]), sqlite3_value_bytes(argv[1]), &malformed);
        if (!pattern) {
            if (malformed) sqlite3_result_error(context, "message_contains: the pattern is not a list of forms", -1);
            else sqlite3_result_error_nomem(context);
            return;
        }
        readHere = 1;
    }
    const unsigned char *text = sqlite3_value_text(argv[0]);
    if (!text) {
        if (readHere) pattern_free(pattern);
        sqlite3_result_error_nomem(context);
        return;
    }
    int found = contains(pattern, text, text + sqlite3_value_bytes(argv[0]));
    // Handed over last: SQLite may free it during this call already.
    if (readHere) sqlite3_set_auxdata(context, 1, pattern, pattern_free);
    sqlite3_result_int(context, found);
}
