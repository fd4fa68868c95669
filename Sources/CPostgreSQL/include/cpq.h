#ifndef COMMITS_MIRROR_CPQ_H
#define COMMITS_MIRROR_CPQ_H

// libpq, loaded on first use, the way Sources/CCurl loads libcurl: a mirror on a
// SQLite file never maps libpq and the libraries it needs (TLS, Kerberos, LDAP),
// and `commitsctl query` on SQLite starts as fast as before PostgreSQL existed.
// cpq_load() dlopens libpq.so.5 once; every other function here calls it first,
// then forwards to libpq. The header only borrows libpq-fe.h's types.

#include <postgresql/libpq-fe.h>

/// Loads libpq once per process, thread-safely. NULL when libpq is usable;
/// otherwise why it is not (dlerror's text).
const char *cpq_load(void);

/// PQconnectdbParams, then notices (e.g. "already exists, skipping") silenced:
/// libpq would print them on stderr, which belongs to the command's output.
PGconn *cpq_connectdb_params(const char *const *keywords, const char *const *values, int expand_dbname);
ConnStatusType cpq_status(const PGconn *connection);
const char *cpq_error_message(const PGconn *connection);
void cpq_finish(PGconn *connection);
int cpq_server_version(const PGconn *connection);
int cpq_backend_pid(const PGconn *connection);
PGTransactionStatusType cpq_transaction_status(const PGconn *connection);
int cpq_connection_used_password(const PGconn *connection);
const char *cpq_parameter_status(const PGconn *connection, const char *name);

/// Several statements in one string, no parameters (the simple query protocol): for migrations.
PGresult *cpq_exec(PGconn *connection, const char *commands);
PGresult *cpq_exec_params(PGconn *connection, const char *command, int count, const char *const *values,
                          const int *lengths, const int *formats, int result_format);
/* A statement prepared under `name` on this connection (its parameters' types inferred), and run with text parameters. */
PGresult *cpq_prepare(PGconn *connection, const char *name, const char *command);
PGresult *cpq_exec_prepared(PGconn *connection, const char *name, int count, const char *const *values);
/* The same with every parameter in PostgreSQL's binary format, `lengths[i]` bytes each. */
PGresult *cpq_exec_prepared_binary(PGconn *connection, const char *name, int count, const char *const *values,
                                   const int *lengths);
int cpq_send_query_params(PGconn *connection, const char *command, int count, const char *const *values,
                          const int *lengths, const int *formats, int result_format);
int cpq_set_single_row_mode(PGconn *connection);
int cpq_send_query(PGconn *connection, const char *commands);
PGresult *cpq_get_result(PGconn *connection);
ExecStatusType cpq_result_status(const PGresult *result);
const char *cpq_result_error_field(const PGresult *result, int field);
const char *cpq_result_error_message(const PGresult *result);
void cpq_clear(PGresult *result);
int cpq_ntuples(const PGresult *result);
int cpq_nfields(const PGresult *result);
const char *cpq_fname(const PGresult *result, int column);
const char *cpq_getvalue(const PGresult *result, int row, int column);
int cpq_getlength(const PGresult *result, int row, int column);
int cpq_getisnull(const PGresult *result, int row, int column);
const char *cpq_cmd_tuples(PGresult *result);

int cpq_put_copy_data(PGconn *connection, const char *buffer, int length);
int cpq_put_copy_end(PGconn *connection, const char *error);

PQconninfoOption *cpq_conninfo_parse(const char *conninfo, char **error);
void cpq_conninfo_free(PQconninfoOption *options);
void cpq_freemem(void *pointer);

#endif
