// Apache Curator's InterProcessMutex (Debian libcurator-recipes-java, Curator 5.4) on the
// ZooKeeper ensemble, as lockpick's process client (docs/process-clients.md).
//
// Used as Curator's documentation shows it (curator.apache.org, "Getting Started" and the
// Shared Reentrant Lock recipe): CuratorFrameworkFactory.newClient(hosts, retryPolicy) with a
// session timeout, client.start(), new InterProcessMutex(client, path), acquire(time, unit),
// release(). Two ways to use it, named by their recipe files:
//   curator-lock.json          (no argument): the holder believes until it releases. Cut off from
//                              the ensemble past its session, it keeps working while ZooKeeper
//                              deletes its node and the next client takes the lock.
//   curator-lock-listener.json (--listener): Curator's advice ("Error handling" in its tech
//                              notes): a ConnectionStateListener that treats SUSPENDED and LOST as
//                              losing the lock. lockpick's renew asks in the hold; the answer is
//                              "lost" once a loss was seen since the grant.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.state.ConnectionState;

public final class CuratorLock implements LockpickClient.Lock {
    static final int SESSION_MS = 2000;   // the recipe files' sessionMs

    private final CuratorFramework client;
    private final boolean listener;
    /** How many times the connection was SUSPENDED or LOST: a hold granted before the last one is gone. */
    private final AtomicInteger losses = new AtomicInteger();
    private final Map<String, InterProcessMutex> mutexes = new HashMap<>();
    private final Map<String, Integer> grantedAt = new HashMap<>();
    /** Holds given up while cut off: released once connected again (or gone with the session). */
    private final List<InterProcessMutex> abandoned = new ArrayList<>();

    CuratorLock(Map<String, Object> start, boolean listener) throws Exception {
        this.listener = listener;
        client = CuratorClients.newClient(start, SESSION_MS);
        if (listener) {
            client.getConnectionStateListenable().addListener((c, state) -> {
                if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) losses.incrementAndGet();
            });
        }
        client.start();
        // Most of the 20 s its recipe gives it to answer ready (startMs): a JVM on a loaded machine
        // once took more than 10 s to connect to the ensemble, and the run ended (exit 2).
        if (!client.blockUntilConnected(18, TimeUnit.SECONDS)) throw new IllegalStateException("no ZooKeeper connection in 18 s");
    }

    public LockpickClient.Held acquire(String key, long ttlMs, long waitMs) throws Exception {
        tidy();
        InterProcessMutex mutex = new InterProcessMutex(client, "/lockpick-curator/" + key);
        int epoch = losses.get();
        if (!mutex.acquire(waitMs, TimeUnit.MILLISECONDS)) return null;
        mutexes.put(key, mutex);
        grantedAt.put(key, epoch);
        return new LockpickClient.Held();
    }

    public boolean release(String key, Object state) throws Exception {
        InterProcessMutex mutex = mutexes.remove(key);
        Integer epoch = grantedAt.remove(key);
        if (mutex == null) return false;
        if (listener && epoch != losses.get()) {   // given up at the loss; tidy up behind it
            abandoned.add(mutex);
            tidy();
            return false;
        }
        mutex.release();
        return true;
    }

    /** With the listener: still held only if no SUSPENDED or LOST was seen since the grant. */
    public boolean renew(String key, long ttlMs, Object state) throws Exception {
        Integer epoch = grantedAt.get(key);
        if (epoch != null && epoch == losses.get() && client.getZookeeperClient().isConnected()) return true;
        InterProcessMutex mutex = mutexes.remove(key);
        grantedAt.remove(key);
        if (mutex != null) abandoned.add(mutex);
        tidy();
        return false;
    }

    /** Releases abandoned holds while connected (release must run on the thread that acquired: this one). */
    private void tidy() {
        if (abandoned.isEmpty() || !client.getZookeeperClient().isConnected()) return;
        for (InterProcessMutex m : abandoned) {
            try { m.release(); } catch (Exception e) { System.err.println("release of an abandoned hold: " + e); }
        }
        abandoned.clear();
    }

    public void close() { client.close(); }

    public static void main(String[] args) {
        boolean listener = args.length > 0 && args[0].equals("--listener");
        LockpickClient.serve(start -> new CuratorLock(start, listener));
    }
}
