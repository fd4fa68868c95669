// The stores' concrete types answer the store protocols through the bookkeeping written once,
// so whoever uses this store sees those methods as its own.
@_exported import MirrorBookkeeping
