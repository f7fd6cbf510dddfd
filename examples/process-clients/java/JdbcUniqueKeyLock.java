// The MySQL lock of the database-lock post (docs/sources.md; 数据库分布式锁, 实现方式一: 主键唯一) in Java over
// JDBC (Debian libmariadb-java), as lockpick's process client (docs/process-clients.md).
//
// As the post writes it: one connection from DriverManager.getConnection(url); acquire INSERTs a
// row (id = the lock, count, thName = the thread's name, addtime) and holds when the insert
// succeeds; a duplicate key means taken: wait and try again until the timeout; unlock is
// `DELETE from test_lock where id = ?` (whoever holds it). Three slips of the post's listing are
// fixed so it runs at all: its column names in single quotes (a syntax error), setLong(1, ...)
// for addtime (it overwrote the id), and statement.execute() as the success test (false for
// every INSERT): executeUpdate() == 1 here. The post polls every 500 ms; here 50 ms, so a
// waiter can win within lockpick's short waits.
//
// The post admits 没有超时保护机制: no expiry, so a holder that dies keeps the row forever (a
// liveness failure). Its remedy, 定时任务去扫描超过一定阈值的锁，并删除 (sweep rows older than a
// threshold), is --expire: acquire first deletes the key's row when it is older than ttlMs by
// this client's wall clock. The post warns of that remedy too: a holder still working past the
// threshold loses its row to the next client (a pause, a slow task or a clock jump).
//
// Not in the post: --fenced (with --expire) adds a fencing token, the row's AUTO_INCREMENT
// column in a table of its own (test_lock_fenced): a later grant's insert comes after the earlier
// row was deleted, so its token is larger, and a resource that rejects smaller tokens turns a
// stale holder's writes into refusals. Its unlock deletes only the row with its own token.
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

public final class JdbcUniqueKeyLock implements LockpickClient.Lock {
    static final long RETRY_MS = 50;
    static final int ER_DUP_ENTRY = 1062;

    private final String url;
    private final boolean expire;
    private final boolean fenced;
    private final String table;
    private Connection connection;

    JdbcUniqueKeyLock(Map<String, Object> start, boolean expire, boolean fenced) throws Exception {
        this.expire = expire || fenced;
        this.fenced = fenced;
        this.table = fenced ? "test_lock_fenced" : "test_lock";
        // The post's thName: the thread's name; here the client id, so owners read in the table.
        Thread.currentThread().setName((String) start.get("client"));
        Map<?, ?> ep = (Map<?, ?>) ((List<?>) start.get("endpoints")).get(0);
        long timeout = LockpickClient.num(start, "commandTimeoutMs");
        String url = "jdbc:mariadb://" + ep.get("host") + ":" + ep.get("port") + "/" + ep.get("database")
            + "?user=" + ep.get("user") + "&password=" + (ep.get("password") == null ? "" : ep.get("password"))
            + "&connectTimeout=" + Math.max(timeout, 1000) + "&socketTimeout=" + timeout;
        this.url = url;
        try (PreparedStatement s = db().prepareStatement(
                "CREATE TABLE IF NOT EXISTS " + table + " (id VARCHAR(191) NOT NULL PRIMARY KEY, count INT NOT NULL, "
                + "thName VARCHAR(191) NOT NULL, addtime BIGINT NOT NULL"
                + (fenced ? ", token BIGINT NOT NULL AUTO_INCREMENT UNIQUE" : "") + ") ENGINE=InnoDB")) {
            s.execute();
        }
    }

    /** The post's one connection, opened again once the driver closed it (a timeout, a cut): a service's pool would. */
    private Connection db() throws SQLException {
        if (connection == null || connection.isClosed()) connection = DriverManager.getConnection(url);
        return connection;
    }

    /** The post's acquire(lockID, timeOuts): insert until it succeeds or the time is up. */
    public LockpickClient.Held acquire(String key, long ttlMs, long waitMs) throws Exception {
        long futureTime = System.currentTimeMillis() + waitMs;
        while (true) {
            if (expire) sweep(key, ttlMs);
            try (PreparedStatement statement = db().prepareStatement("insert into " + table + " (id, count, thName, addtime) VALUES (?,?,?,?)", Statement.RETURN_GENERATED_KEYS)) {
                statement.setString(1, key);
                statement.setInt(2, 1);
                statement.setString(3, Thread.currentThread().getName());
                statement.setLong(4, System.currentTimeMillis());
                if (statement.executeUpdate() == 1) return held(statement);
            } catch (SQLException e) {
                if (!(e instanceof SQLIntegrityConstraintViolationException || e.getErrorCode() == ER_DUP_ENTRY)) throw e;
            }
            long remain = futureTime - System.currentTimeMillis();
            if (remain <= 0) return null;
            Thread.sleep(Math.min(RETRY_MS, remain));
        }
    }

    /** Held; fenced, with the row's token (also the state its unlock gets back). */
    private LockpickClient.Held held(Statement statement) throws SQLException {
        LockpickClient.Held h = new LockpickClient.Held();
        if (!fenced) return h;
        try (var keys = statement.getGeneratedKeys()) {
            if (!keys.next()) throw new SQLException("no generated token");
            h.token = keys.getLong(1);
            h.state = h.token;
        }
        return h;
    }

    /** The remedy: a row older than the threshold is taken to be a dead holder's, and deleted. */
    private void sweep(String key, long ttlMs) throws SQLException {
        try (PreparedStatement s = db().prepareStatement("DELETE from " + table + " where id = ? and addtime < ?")) {
            s.setString(1, key);
            s.setLong(2, System.currentTimeMillis() - ttlMs);
            s.executeUpdate();
        }
    }

    /** The post's unlock(lockID): delete the row, whoever's it is. */
    public boolean release(String key, Object state) throws Exception {
        try (PreparedStatement statement = db().prepareStatement("DELETE  from " + table + " where id = ?" + (fenced ? " and token = ?" : ""))) {
            statement.setString(1, key);
            if (fenced) statement.setLong(2, ((Number) state).longValue());
            return statement.executeUpdate() == 1;
        }
    }

    public void close() throws Exception { if (connection != null) connection.close(); }

    public static void main(String[] args) {
        List<String> a = List.of(args);
        LockpickClient.serve(start -> new JdbcUniqueKeyLock(start, a.contains("--expire"), a.contains("--fenced")));
    }
}
