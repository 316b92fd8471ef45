package io.seglog.replication.zk;

/**
 * The ZooKeeper outcomes that callers of this package act on, without exposing ZooKeeper's own types
 * outside the package.
 */
public enum ZkError {
    /** The znode does not exist. */
    NO_NODE,
    /** The znode already exists. */
    NODE_EXISTS,
    /** A version condition (setData, delete or check at an expected version) did not hold. */
    BAD_VERSION,
    /** A delete was refused because the znode has children. */
    NOT_EMPTY,
    /** The session lacks the ACL permission (an unauthenticated client writing a secured znode). */
    NO_AUTH,
    /** The connection was lost before the result was known; a write may or may not have landed. */
    CONNECTION_LOSS,
    /** The session expired; its ephemerals are gone or going. */
    SESSION_EXPIRED,
    /** The call's deadline passed before ZooKeeper answered; a write may or may not have landed. */
    TIMEOUT,
    /** The client is closed. */
    CLOSED,
    /** Any other ZooKeeper failure. */
    OTHER
}
