package io.seglog.replication.controller;

/**
 * Runs a {@link Controller}'s event loop in steps on the caller's thread instead of a thread of its own: a
 * deterministic simulation drives several controllers on one thread. When an event is queued the controller calls
 * {@link #wakeup}; the driver then calls {@link Controller#runOnce} (later, never from inside {@code wakeup}) until it
 * returns false, and again at {@link Controller#nextWakeMs}.
 */
@FunctionalInterface
public interface ControllerDriver {
    /**
     * An event was queued: a step is wanted. Must not run the step inline (the caller may hold locks, or be the
     * step itself).
     */
    void wakeup();
}
