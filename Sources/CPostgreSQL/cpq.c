#include "cpq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// The soname of libpq since PostgreSQL 8.3 (Debian's libpq5 package).
#define CPQ_LIBRARY "libpq.so.5"

// Every libpq function used, once: the table of pointers and their lookup both
// come from this list, so the two cannot disagree.
#define CPQ_FUNCTIONS(X)                                                                                     \
    X(PGconn *, PQconnectdbParams, (const char *const *, const char *const *, int))                          \
    X(ConnStatusType, PQstatus, (const PGconn *))                                                            \
    X(char *, PQerrorMessage, (const PGconn *))                                                              \
    X(void, PQfinish, (PGconn *))                                                                            \
    X(int, PQserverVersion, (const PGconn *))                                                                \
    X(int, PQbackendPID, (const PGconn *))                                                                   \
    X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *))                                        \
    X(int, PQconnectionUsedPassword, (const PGconn *))                                                       \
    X(const char *, PQparameterStatus, (const PGconn *, const char *))                                       \
    X(PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *, PQnoticeProcessor, void *))                        \
    X(PGresult *, PQexec, (PGconn *, const char *))                                                          \
    X(PGresult *, PQexecParams,                                                                              \
      (PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *, int))        \
    X(PGresult *, PQprepare, (PGconn *, const char *, const char *, int, const Oid *))                       \
    X(PGresult *, PQexecPrepared,                                                                            \
      (PGconn *, const char *, int, const char *const *, const int *, const int *, int))                     \
    X(int, PQsendQueryParams,                                                                                \
      (PGconn *, const char *, int, const Oid *, const char *const *, const int *, const int *, int))        \
    X(int, PQsendQuery, (PGconn *, const char *))                                                            \
    X(int, PQsetSingleRowMode, (PGconn *))                                                                   \
    X(PGresult *, PQgetResult, (PGconn *))                                                                   \
    X(ExecStatusType, PQresultStatus, (const PGresult *))                                                    \
    X(char *, PQresultErrorField, (const PGresult *, int))                                                   \
    X(char *, PQresultErrorMessage, (const PGresult *))                                                      \
    X(void, PQclear, (PGresult *))                                                                           \
    X(int, PQntuples, (const PGresult *))                                                                    \
    X(int, PQnfields, (const PGresult *))                                                                    \
    X(char *, PQfname, (const PGresult *, int))                                                              \
    X(char *, PQgetvalue, (const PGresult *, int, int))                                                      \
    X(int, PQgetlength, (const PGresult *, int, int))                                                        \
    X(int, PQgetisnull, (const PGresult *, int, int))                                                        \
    X(char *, PQcmdTuples, (PGresult *))                                                                     \
    X(int, PQputCopyData, (PGconn *, const char *, int))                                                     \
    X(int, PQputCopyEnd, (PGconn *, const char *))                                                           \
    X(PQconninfoOption *, PQconninfoParse, (const char *, char **))                                          \
    X(void, PQconninfoFree, (PQconninfoOption *))                                                            \
    X(void, PQfreemem, (void *))

#define CPQ_SLOT(result, name, arguments) result(*name) arguments;
static struct {
    CPQ_FUNCTIONS(CPQ_SLOT)
} pq;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[512];

static void load(void) {
    void *library = dlopen(CPQ_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
#define CPQ_RESOLVE(result, name, arguments)                                                                 \
    *(void **)&pq.name = dlsym(library, #name);                                                              \
    if (pq.name == NULL) {                                                                                   \
        snprintf(load_error, sizeof load_error, "%s has no %s", CPQ_LIBRARY, #name);                         \
        return;                                                                                              \
    }
    CPQ_FUNCTIONS(CPQ_RESOLVE)
}

const char *cpq_load(void) {
    pthread_once(&load_once, load);
    return load_error[0] ? load_error : NULL;
}

// Without libpq each entry point fails the way libpq itself reports failure
// (NULL, 0, a bad status), never by a crash.
#define CPQ_READY() (cpq_load() == NULL)

static void ignore_notice(void *argument, const char *message) {
    (void)argument;
    (void)message;
}

PGconn *cpq_connectdb_params(const char *const *keywords, const char *const *values, int expand_dbname) {
    if (!CPQ_READY()) return NULL;
    PGconn *connection = pq.PQconnectdbParams(keywords, values, expand_dbname);
    if (connection != NULL) pq.PQsetNoticeProcessor(connection, ignore_notice, NULL);
    return connection;
}

ConnStatusType cpq_status(const PGconn *connection) { return CPQ_READY() ? pq.PQstatus(connection) : CONNECTION_BAD; }

const char *cpq_error_message(const PGconn *connection) {
    return CPQ_READY() ? pq.PQerrorMessage(connection) : load_error;
}

void cpq_finish(PGconn *connection) {
    if (CPQ_READY()) pq.PQfinish(connection);
}

int cpq_server_version(const PGconn *connection) { return CPQ_READY() ? pq.PQserverVersion(connection) : 0; }

int cpq_backend_pid(const PGconn *connection) { return CPQ_READY() ? pq.PQbackendPID(connection) : 0; }

PGTransactionStatusType cpq_transaction_status(const PGconn *connection) {
    return CPQ_READY() ? pq.PQtransactionStatus(connection) : PQTRANS_UNKNOWN;
}

int cpq_connection_used_password(const PGconn *connection) {
    return CPQ_READY() ? pq.PQconnectionUsedPassword(connection) : 0;
}

const char *cpq_parameter_status(const PGconn *connection, const char *name) {
    return CPQ_READY() ? pq.PQparameterStatus(connection, name) : NULL;
}

PGresult *cpq_exec(PGconn *connection, const char *commands) {
    return CPQ_READY() ? pq.PQexec(connection, commands) : NULL;
}

PGresult *cpq_exec_params(PGconn *connection, const char *command, int count, const char *const *values,
                          const int *lengths, const int *formats, int result_format) {
    return CPQ_READY() ? pq.PQexecParams(connection, command, count, NULL, values, lengths, formats, result_format)
                       : NULL;
}

PGresult *cpq_prepare(PGconn *connection, const char *name, const char *command) {
    return CPQ_READY() ? pq.PQprepare(connection, name, command, 0, NULL) : NULL;
}

PGresult *cpq_exec_prepared(PGconn *connection, const char *name, int count, const char *const *values) {
    return CPQ_READY() ? pq.PQexecPrepared(connection, name, count, values, NULL, NULL, 0) : NULL;
}

PGresult *cpq_exec_prepared_binary(PGconn *connection, const char *name, int count, const char *const *values,
                                   const int *lengths) {
    if (!CPQ_READY()) return NULL;
    // PQexecPrepared takes a format per parameter; every one here is binary (1).
    int formats[count > 0 ? count : 1];
    for (int index = 0; index < count; index++) formats[index] = 1;
    return pq.PQexecPrepared(connection, name, count, values, lengths, formats, 0);
}

int cpq_send_query_params(PGconn *connection, const char *command, int count, const char *const *values,
                          const int *lengths, const int *formats, int result_format) {
    return CPQ_READY()
               ? pq.PQsendQueryParams(connection, command, count, NULL, values, lengths, formats, result_format)
               : 0;
}

int cpq_set_single_row_mode(PGconn *connection) { return CPQ_READY() ? pq.PQsetSingleRowMode(connection) : 0; }

int cpq_send_query(PGconn *connection, const char *commands) {
    return CPQ_READY() ? pq.PQsendQuery(connection, commands) : 0;
}

PGresult *cpq_get_result(PGconn *connection) { return CPQ_READY() ? pq.PQgetResult(connection) : NULL; }

ExecStatusType cpq_result_status(const PGresult *result) {
    return CPQ_READY() ? pq.PQresultStatus(result) : PGRES_FATAL_ERROR;
}

const char *cpq_result_error_field(const PGresult *result, int field) {
    return CPQ_READY() ? pq.PQresultErrorField(result, field) : NULL;
}

const char *cpq_result_error_message(const PGresult *result) {
    return CPQ_READY() ? pq.PQresultErrorMessage(result) : load_error;
}

void cpq_clear(PGresult *result) {
    if (CPQ_READY()) pq.PQclear(result);
}

int cpq_ntuples(const PGresult *result) { return CPQ_READY() ? pq.PQntuples(result) : 0; }

int cpq_nfields(const PGresult *result) { return CPQ_READY() ? pq.PQnfields(result) : 0; }

const char *cpq_fname(const PGresult *result, int column) { return CPQ_READY() ? pq.PQfname(result, column) : NULL; }

const char *cpq_getvalue(const PGresult *result, int row, int column) {
    return CPQ_READY() ? pq.PQgetvalue(result, row, column) : NULL;
}

int cpq_getlength(const PGresult *result, int row, int column) {
    return CPQ_READY() ? pq.PQgetlength(result, row, column) : 0;
}

int cpq_getisnull(const PGresult *result, int row, int column) {
    return CPQ_READY() ? pq.PQgetisnull(result, row, column) : 1;
}

const char *cpq_cmd_tuples(PGresult *result) { return CPQ_READY() ? pq.PQcmdTuples(result) : ""; }

int cpq_put_copy_data(PGconn *connection, const char *buffer, int length) {
    return CPQ_READY() ? pq.PQputCopyData(connection, buffer, length) : -1;
}

int cpq_put_copy_end(PGconn *connection, const char *error) {
    return CPQ_READY() ? pq.PQputCopyEnd(connection, error) : -1;
}

PQconninfoOption *cpq_conninfo_parse(const char *conninfo, char **error) {
    if (!CPQ_READY()) {
        if (error != NULL) *error = NULL;
        return NULL;
    }
    return pq.PQconninfoParse(conninfo, error);
}

void cpq_conninfo_free(PQconninfoOption *options) {
    if (CPQ_READY()) pq.PQconninfoFree(options);
}

void cpq_freemem(void *pointer) {
    if (CPQ_READY()) pq.PQfreemem(pointer);
}
