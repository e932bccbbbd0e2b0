/**
 * Kiosks on one LAN warn each other: the socket side (node:dgram) of
 * lan-peers.ts, which makes every decision. One UDP socket, bound to the
 * documented port, sends and receives everything: unicast to each peer in the
 * peer list, and (with discovery on) a hello to the multicast group every few
 * seconds, which is how kiosks find each other without configuration. The
 * peers a test or IT configures by hand go into the same peer list that
 * discovery fills, and everything else is the same code path.
 */
import { createSocket, type Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIPv4 } from 'node:net';
import {
  CATCHUP_LIMIT,
  DEFAULT_HELLO_INTERVAL_MS,
  DEFAULT_LAN_GROUP,
  DEFAULT_LAN_PORT,
  LanLogBudgets,
  LanPeerState,
  type LanAdmission,
  type LanExit,
  type LanHandout,
  type LanMembership,
  type OwnMovesSince,
  type LanPeerStateOptions,
  type PeerAddress,
  type PeerAdmission,
  type PeerExit,
  type PeerMove,
  type PeerNetwork,
} from './lan-peers.js';
import type { GivenRow } from '../../../protocol/handouts.js';

export interface LanTransportOptions extends LanPeerStateOptions {
  /** UDP port to bind (default 47474); 0 for any free one (tests). */
  port?: number;
  /** Address to bind (default all interfaces; tests use 127.0.0.1). */
  bindAddress?: string;
  /**
   * Multicast discovery (default true): join the group and send a hello to it every
   * `helloIntervalMs`. Off, only the configured `peers` are talked to (tests: loopback only).
   */
  discovery?: boolean;
  group?: string;
  helloIntervalMs?: number;
  /** One line per event worth an operator's attention; never a key. */
  log: (line: string) => void;
  now?: () => number;
}

export class LanTransport implements PeerNetwork {
  private readonly state: LanPeerState;
  private socket: Socket | null = null;
  private timer: ReturnType<typeof setInterval> | undefined;
  private ownAdmissionsSince: ((since: string, limit: number) => LanAdmission[]) | null = null;
  private ownAnnulmentsSince: ((since: string, limit: number) => LanAdmission[]) | null = null;
  private ownMovesSince: OwnMovesSince | null = null;
  /** This host's clock: the log budgets' minutes. */
  private readonly now: () => number;
  /** The time the LAN goes by (LanMembership `clock`: the issuer's as the kiosk knows it), else `now`. */
  private lanNow: () => number;
  private closed = false;
  private readonly logBudgets = new LanLogBudgets();

  private constructor(private readonly options: LanTransportOptions) {
    this.state = new LanPeerState(options);
    this.now = options.now ?? Date.now;
    this.lanNow = this.now;
  }

  /** Binds the socket; resolves once it listens (the bound port is `port`). */
  static async start(options: LanTransportOptions): Promise<LanTransport> {
    const peers = await resolvePeers(options.peers ?? [], options.log);
    const transport = new LanTransport({ ...options, peers });
    await transport.bind();
    return transport;
  }

  get port(): number {
    return this.socket?.address().port ?? 0;
  }

  /** How many peer admissions this kiosk knows (tests, diagnostics). */
  get knownAdmissions(): number {
    return this.state.knownAdmissions;
  }

  private async bind(): Promise<void> {
    const discovery = this.options.discovery !== false;
    const socket = createSocket({ type: 'udp4', reuseAddr: discovery });
    this.socket = socket;
    socket.on('message', (bytes, rinfo) => this.onMessage(bytes, { address: rinfo.address, port: rinfo.port }));
    socket.on('error', (error) => this.options.log(`LAN warnings: socket error (${error.message}).`));
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(this.options.port ?? DEFAULT_LAN_PORT, this.options.bindAddress, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    if (discovery) {
      try {
        socket.addMembership(this.options.group ?? DEFAULT_LAN_GROUP);
        socket.setMulticastTTL(1); // the local segment only
        socket.setMulticastLoopback(false);
      } catch (error) {
        this.options.log(
          `LAN warnings: multicast discovery is unavailable here (${error instanceof Error ? error.message : String(error)}); only configured peers are used.`,
        );
      }
    }
    const every = this.options.helloIntervalMs ?? DEFAULT_HELLO_INTERVAL_MS;
    this.timer = setInterval(() => {
      for (const line of this.logBudgets.due(this.now())) this.options.log(line);
      this.hello();
    }, every);
    this.timer.unref?.();
  }

  join(
    membership: LanMembership,
    ownAdmissionsSince: (since: string, limit: number) => LanAdmission[],
    ownAnnulmentsSince: (since: string, limit: number) => LanAdmission[] = () => [],
    ownMovesSince: OwnMovesSince | null = null,
  ): void {
    if (this.closed) return;
    this.state.setMembership(membership);
    this.lanNow = membership.clock ?? this.now;
    this.ownAdmissionsSince = ownAdmissionsSince;
    this.ownAnnulmentsSince = ownAnnulmentsSince;
    this.ownMovesSince = ownMovesSince;
    this.options.log(`LAN warnings on for event ${membership.eid} (UDP port ${this.port}).`);
    // Joining (or coming back): tell every known peer, and ask each what it admitted while away.
    this.hello();
    const now = this.lanNow();
    for (const peer of this.state.destinations(now)) {
      const ask = this.state.catchupRequest(now);
      if (ask) this.send(peer, ask);
    }
  }

  leave(): void {
    this.state.setMembership(null);
    this.lanNow = this.now;
    this.ownAdmissionsSince = null;
    this.ownAnnulmentsSince = null;
    this.ownMovesSince = null;
  }

  admissionOf(tid: string): PeerAdmission | undefined {
    return this.state.admissionOf(tid);
  }

  peopleAfter(tid: string, after: string | null): number {
    return this.state.peopleAfter(tid, after);
  }

  partyMovesAfter(tid: string, after: string | null): PeerMove[] {
    return this.state.partyMovesAfter(tid, after);
  }

  handoutsOf(tid: string): GivenRow[] {
    return this.state.handoutsOf(tid);
  }

  /** The exits of a ticket peers told of (tests, diagnostics). */
  exitsOf(tid: string): readonly PeerExit[] {
    return this.state.exitsOf(tid);
  }

  publish(admission: LanAdmission): void {
    this.tellPeers('admit', { adm: [admission] });
  }

  publishAnnulment(annulment: LanAdmission): void {
    this.tellPeers('annul', { adm: [annulment] });
  }

  publishExit(exit: LanExit): void {
    this.tellPeers('exit', { exits: [exit] });
  }

  publishHandout(handout: LanHandout): void {
    this.tellPeers('handout', { handouts: [handout] });
  }

  private tellPeers(
    type: 'admit' | 'annul' | 'exit' | 'handout',
    fields: { adm?: LanAdmission[]; exits?: LanExit[]; handouts?: LanHandout[] },
  ): void {
    if (this.closed) return;
    const now = this.lanNow();
    const bytes = this.state.build(type, now, fields);
    if (!bytes) return;
    for (const peer of this.state.destinations(now)) this.send(peer, bytes);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    const socket = this.socket;
    this.socket = null;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }

  private hello(): void {
    if (this.closed || !this.state.joined) return;
    const now = this.lanNow();
    const bytes = this.state.build('hello', now);
    if (!bytes) return;
    for (const peer of this.state.destinations(now)) this.send(peer, bytes);
    if (this.options.discovery !== false) {
      this.send({ address: this.options.group ?? DEFAULT_LAN_GROUP, port: this.options.port ?? DEFAULT_LAN_PORT }, bytes);
    }
  }

  private onMessage(bytes: Buffer, from: PeerAddress): void {
    if (this.closed) return;
    const now = this.lanNow();
    const handling = this.state.receive(bytes, from, now);
    for (const line of this.logBudgets.lines(handling, from, this.now())) this.options.log(line);
    for (const { to, bytes: out } of handling.send) this.send(to, out);
    if (handling.catchupFrom && this.ownAdmissionsSince) {
      let own: LanAdmission[];
      let annulled: LanAdmission[];
      let moves: { exits: LanExit[]; handouts: LanHandout[] };
      try {
        own = this.ownAdmissionsSince(handling.catchupFrom.since, CATCHUP_LIMIT);
        annulled = this.ownAnnulmentsSince?.(handling.catchupFrom.since, CATCHUP_LIMIT) ?? [];
        moves = {
          exits: this.ownMovesSince?.exits(handling.catchupFrom.since, CATCHUP_LIMIT) ?? [],
          handouts: this.ownMovesSince?.handouts(handling.catchupFrom.since, CATCHUP_LIMIT) ?? [],
        };
      } catch (error) {
        this.options.log(
          `LAN warnings: could not read this kiosk's admissions (${error instanceof Error ? error.message : String(error)}).`,
        );
        return;
      }
      for (const reply of this.state.catchupReplies(own, now, annulled, moves)) this.send(handling.catchupFrom.to, reply);
    }
  }

  private send(to: PeerAddress, bytes: Buffer): void {
    const socket = this.socket;
    if (!socket || this.closed) return;
    socket.send(bytes, to.port, to.address, (error) => {
      // A peer that went away is normal on a venue network: not an operator's problem.
      if (error && !this.closed) this.options.log(`LAN warnings: could not send to ${to.address}:${to.port} (${error.message}).`);
    });
  }
}

/**
 * Peers listed by host name are looked up once, at start (the peer list holds addresses, as datagrams come
 * from addresses); one that cannot be looked up is left out with a log line, and the kiosk runs on.
 */
async function resolvePeers(peers: readonly PeerAddress[], log: (line: string) => void): Promise<PeerAddress[]> {
  const resolved: PeerAddress[] = [];
  for (const peer of peers) {
    if (isIPv4(peer.address)) {
      resolved.push(peer);
      continue;
    }
    try {
      resolved.push({ address: (await lookup(peer.address, { family: 4 })).address, port: peer.port });
    } catch (error) {
      log(
        `LAN peer ${peer.address}:${peer.port} left out: its name cannot be looked up (${error instanceof Error ? error.message : String(error)}).`,
      );
    }
  }
  return resolved;
}
