// Apache Curator's InterProcessSemaphoreV2, or its InterProcessReadWriteLock (Debian
// libcurator-recipes-java, Curator 5.4), on the ZooKeeper ensemble, as lockpick's process client
// (docs/process-clients.md).
//
// Used as Curator's documentation shows them (the Shared Semaphore and Shared Reentrant Read Write
// Lock recipes): CuratorFrameworkFactory.newClient(hosts, retryPolicy), client.start(), then
//   curator-semaphore.json (no argument): new InterProcessSemaphoreV2(client, path, maxLeases);
//       Lease lease = semaphore.acquire(time, unit); semaphore.returnLease(lease)
//   curator-rwlock.json (--rwlock): new InterProcessReadWriteLock(client, path); readLock() or
//       writeLock() by the request's mode, acquire(time, unit), release()
// The holder believes until it releases: cut off past its session, it works on while ZooKeeper
// deletes its node and the next client is let in.
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

public final class CuratorShared implements LockpickClient.Lock {
    static final int SESSION_MS = 2000;   // the recipe files' sessionMs

    private final CuratorFramework client;
    private final boolean rwlock;
    /** What each key's hold gives back: a semaphore's Lease (with its semaphore), or the read or write lock. */
    private final Map<String, Runnable> releases = new HashMap<>();

    CuratorShared(Map<String, Object> start, boolean rwlock) throws Exception {
        this.rwlock = rwlock;
        client = CuratorClients.newClient(start, SESSION_MS);
        client.start();
        // Most of the 20 s its recipe gives it to answer ready (startMs): a JVM on a loaded machine
        // once took more than 10 s to connect to the ensemble, and the run ended (exit 2).
        if (!client.blockUntilConnected(18, TimeUnit.SECONDS)) throw new IllegalStateException("no ZooKeeper connection in 18 s");
    }

    public LockpickClient.Held acquire(String key, long ttlMs, long waitMs) throws Exception {
        return acquire(key, ttlMs, waitMs, Map.of());
    }

    public LockpickClient.Held acquire(String key, long ttlMs, long waitMs, Map<String, Object> request) throws Exception {
        if (rwlock) {
            InterProcessReadWriteLock rw = new InterProcessReadWriteLock(client, "/lockpick-curator-rw/" + key);
            InterProcessMutex lock = "shared".equals(request.get("mode")) ? rw.readLock() : rw.writeLock();
            if (!lock.acquire(waitMs, TimeUnit.MILLISECONDS)) return null;
            releases.put(key, () -> { try { lock.release(); } catch (Exception e) { throw new IllegalStateException(e); } });
        } else {
            Object limit = request.get("limit");
            int maxLeases = limit instanceof Number ? ((Number) limit).intValue() : 1;
            InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(client, "/lockpick-curator-sem/" + key, maxLeases);
            Lease lease = semaphore.acquire(waitMs, TimeUnit.MILLISECONDS);
            if (lease == null) return null;
            releases.put(key, () -> semaphore.returnLease(lease));
        }
        return new LockpickClient.Held();
    }

    public boolean release(String key, Object state) throws Exception {
        Runnable r = releases.remove(key);
        if (r == null) return false;
        try {
            r.run();
        } catch (IllegalStateException e) {
            if (e.getCause() instanceof Exception) throw (Exception) e.getCause();
            throw e;
        }
        return true;
    }

    public void close() { client.close(); }

    public static void main(String[] args) {
        boolean rwlock = args.length > 0 && args[0].equals("--rwlock");
        LockpickClient.serve(start -> new CuratorShared(start, rwlock));
    }
}
