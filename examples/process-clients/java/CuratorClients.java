// The Curator client the Curator examples share: the ensemble from the start message's endpoints
// (through lockpick's fault proxy), the session timeout their recipe files declare, and a
// connection timeout about lockpick's commandTimeoutMs (a blocked operation then answers error).
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

final class CuratorClients {
    private CuratorClients() {}

    /** A client of the start message's ensemble, not yet started (a listener may be added first). */
    static CuratorFramework newClient(Map<String, Object> start, int sessionMs) {
        StringBuilder hosts = new StringBuilder();
        for (Object o : (List<?>) start.get("endpoints")) {
            Map<?, ?> ep = (Map<?, ?>) o;
            if (hosts.length() > 0) hosts.append(',');
            hosts.append(ep.get("host")).append(':').append(ep.get("port"));
        }
        int timeout = (int) LockpickClient.num(start, "commandTimeoutMs");
        return CuratorFrameworkFactory.newClient(hosts.toString(), sessionMs, Math.max(timeout, 1000), new ExponentialBackoffRetry(100, 2));
    }
}
