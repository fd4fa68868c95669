#ifndef COMMITS_MIRROR_MESSAGE_SEARCH_H
#define COMMITS_MIRROR_MESSAGE_SEARCH_H

#include <sqlite3.h>

/// The SQL function `message_contains(message, pattern)`: 1 when, one Unicode
/// scalar at a time, the message holds one of the pattern's forms of each of
/// its scalars in a row; 0 when not; NULL when either argument is NULL.
///
/// `pattern` is a blob of native-endian 32-bit words: the number of scalars,
/// then for each scalar the number of its forms and the forms (MessageNeedle).
/// The message is read as SQLite reads UTF-8 (sqlite3Utf8Read), so a search
/// answers what the trigram index, GLOB and instr answer for the same forms.
void cm_message_contains(sqlite3_context *context, int argc, sqlite3_value **argv);

#endif
