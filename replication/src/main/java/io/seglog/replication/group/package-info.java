/**
 * Consumer groups: the classic group coordinator's state and its records in {@code __consumer_offsets}, in Kafka's
 * schemas.
 *
 * <p>Who owns what, for one offsets partition (every class runs on the coordinator's one thread; each field has one
 * writer, the class that declares it, and the others call its methods):
 * <ul>
 *   <li>{@link io.seglog.replication.group.GroupManager}: the one entry point the coordinator calls; owns no state,
 *       composes the owners below and does what spans two of them (DeleteGroups, the replay of records).</li>
 *   <li>{@code GroupMembership}: the groups by id and the classic membership protocol (join, sync, heartbeat,
 *       leave, rebalances) with its timers.</li>
 *   <li>{@code CommittedOffsets}: the committed offsets, the offset writes in flight, the write each partition
 *       shows, and offset expiry.</li>
 *   <li>{@code GroupWrites}: the offsets partition's writer and the sequence that numbers every write in log
 *       order.</li>
 *   <li>{@code GroupTasks}: the timer-key scope and whether the manager still runs.</li>
 *   <li>{@code ClassicGroup} and {@code GroupMember}: one group's and one member's state.</li>
 * </ul>
 */
package io.seglog.replication.group;
