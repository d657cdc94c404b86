/// A storage's connection pool now, for `GET /metrics` (the PostgreSQL storage reports one; the JSONL storage has
/// no pool): connections leased by requests, requests waiting for one, and the pool's largest number of connections.
public typealias StoragePoolFigures = (inUse: Int, waiting: Int, maximum: Int)
