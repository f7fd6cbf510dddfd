// ZooKeeper's client protocol (jute): frames of an int32 length and a body. The first frame of a
// connection is the ConnectRequest; after it each request's body begins with an xid and an op
// code. Pings (xid -2), auth (-4) and watch re-registration (-8) are the client library's own
// traffic, not the lock's requests: they are not counted (they still keep their place in the
// byte order, behind a held request).
import { FrameScanner, type Framing } from './types.ts';

/** Frames longer than this are not ZooKeeper's (jute.maxbuffer defaults to 1 MB; leave room). */
const MAX_FRAME = 64 * 1024 * 1024;

const OPS: Record<number, string> = {
  1: 'CREATE', 2: 'DELETE', 3: 'EXISTS', 4: 'GETDATA', 5: 'SETDATA', 6: 'GETACL', 7: 'SETACL', 8: 'GETCHILDREN',
  9: 'SYNC', 11: 'PING', 12: 'GETCHILDREN2', 13: 'CHECK', 14: 'MULTI', 15: 'CREATE2', 16: 'RECONFIG',
  19: 'CREATECONTAINER', 20: 'DELETECONTAINER', 21: 'CREATETTL', 22: 'MULTIREAD', 100: 'AUTH', 101: 'SETWATCHES',
  103: 'GETEPHEMERALS', 104: 'GETALLCHILDRENNUMBER', 105: 'SETWATCHES2', 106: 'ADDWATCH', [-11]: 'CLOSESESSION',
};

class ZookeeperFramer extends FrameScanner {
  private connected = false;   // the ConnectRequest went by
  // The header read with each frame: its length, and the xid that says whether it is a request.
  protected headerBytes(): number { return this.connected ? 8 : 4; }
  protected begin(h: Buffer): { bodyBytes: number; starts: boolean } | undefined {
    const len = h.readInt32BE(0);
    if (!this.connected) {
      if (len < 0 || len > MAX_FRAME) return undefined;
      this.connected = true;
      return { bodyBytes: len, starts: true };
    }
    if (len < 4 || len > MAX_FRAME) return undefined;
    return { bodyBytes: len - 4, starts: h.readInt32BE(4) >= 0 };
  }
}

export const zookeeper: Framing = {
  summary: 'ZooKeeper: int32 length-prefixed frames (the first is the ConnectRequest); pings and auth are not counted',
  create: () => new ZookeeperFramer(),
  closes: ['CLOSESESSION'],
  command(head) {
    if (head.length < 12 || head.readInt32BE(4) < 0) return undefined;
    return OPS[head.readInt32BE(8)];
  },
};
