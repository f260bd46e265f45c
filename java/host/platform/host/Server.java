package platform.host;

import com.google.protobuf.ByteString;
import gateway.Gateway;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import platform.api.Availability;

/**
 * The internal protocol's server side in Java, as src/microservice/host/microservice-server.ts does it in
 * Node: the handshake (with the HMAC proof when a secret is set), the catalog, Invoke on a pool of
 * threadPoolSize threads behind a queue of queueLimit calls, the executing timeout (the thread is
 * interrupted and the call answered EXECUTION_TIMEOUT), Cancel, Ping with the availability flag, and a
 * drain that tells every gateway to go away before the process ends.
 */
final class Server {
  static final int PROTOCOL_VERSION = 1;

  final Config config;
  private final Microservice ms;
  private final Invoker invoker;
  private final byte[] secret;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  /**
   * Threads for calls, made when none is idle and kept 60 s: idle ones wait on a SynchronousQueue, whose
   * last waiter gets the next call, so that a few hot threads take the calls rather than each call waking
   * another of threadPoolSize parked threads (docs/java.md, Cost per call). The slots below bound them.
   */
  private final ThreadPoolExecutor threads;
  /** Guards running, waiting and left: calls in a slot, calls waiting for one, calls left to their thread. */
  private final Object slots = new Object();
  private int running;
  private final ArrayDeque<Call> waiting = new ArrayDeque<>();
  private int left;
  private final ScheduledThreadPoolExecutor timers;
  /**
   * The calls in their method, for the sweep that answers those past their executing timeout. A sweep
   * every 10 ms, not a timer per call: scheduling and cancelling one per call woke the timer thread and
   * showed as system time in the cost per call (docs/java.md, Cost per call).
   */
  private final Set<Call> executing = ConcurrentHashMap.newKeySet();
  private ServerSocketChannel listener;
  private SSLServerSocket tlsListener;
  private Path socketFile;
  private volatile boolean draining;
  private final SecureRandom random = new SecureRandom();

  /** One call being executed; a Cancel or the connection's end abandons it, the deadline answers it. */
  final class Call {
    final Connection conn;
    final Gateway.Invoke invoke;
    final AtomicBoolean done = new AtomicBoolean();
    /** When the executing timeout passes (System.nanoTime), and the limit it stands for, ms. */
    long deadlineAt;
    long limit;
    /** The thread in the method, while it is there (guarded by this call's monitor). */
    private Thread thread;
    /** Interrupted and still running a second later: its thread is left to it (see leave()). */
    volatile boolean left;

    Call(Connection conn, Gateway.Invoke invoke) {
      this.conn = conn;
      this.invoke = invoke;
    }

    /** Runs the call on this thread, unless it was answered or abandoned while it waited for a slot. */
    void execute() {
      limit = invoke.getTimeoutMs() > 0 ? Math.min(invoke.getTimeoutMs(), config.threadExecutingTimeOut)
          : config.threadExecutingTimeOut;
      deadlineAt = System.nanoTime() + limit * 1_000_000L;
      // Under the lock interrupt() takes: a Cancel either finds the thread here or is seen here.
      synchronized (this) {
        if (done.get()) return;
        thread = Thread.currentThread();
      }
      executing.add(this);
      Gateway.Result r = null;
      try {
        r = invoker.invoke(invoke);
      } catch (InterruptedException e) {
        // The deadline or a cancel interrupted it, and answered (or not) already.
      } finally {
        synchronized (this) {
          thread = null;
        }
        executing.remove(this);
        // An interrupt meant for this call must not reach the next one on this thread.
        Thread.interrupted();
      }
      if (r != null) reply(r);
    }

    boolean running() {
      synchronized (this) {
        return thread != null;
      }
    }

    void timedOut() {
      if (!reply(Invoker.fail("EXECUTION_TIMEOUT", "the method ran longer than the executing timeout of " + limit + " ms")))
        return;
      interrupt();
    }

    /** Interrupts the method; one that ignores it keeps its thread, as Java has no safe way to stop it. */
    private void interrupt() {
      synchronized (this) {
        if (thread == null) return;
        thread.interrupt();
      }
      timers.schedule(() -> {
        if (running()) leave(this);
      }, 1, TimeUnit.SECONDS);
    }

    /** Answers once; false when the call was answered or abandoned before. */
    boolean reply(Gateway.Result r) {
      if (!done.compareAndSet(false, true)) return false;
      conn.calls.remove(invoke.getId(), this);
      conn.send(Gateway.Frame.newBuilder().setResult(r.toBuilder().setId(invoke.getId())).build());
      return true;
    }

    void abandon() {
      if (!done.compareAndSet(false, true)) return;
      conn.calls.remove(invoke.getId(), this);
      interrupt();
    }
  }

  Server(Microservice ms, String secret) {
    this.ms = ms;
    this.config = ms.config;
    this.invoker = new Invoker(ms);
    this.secret = secret == null || secret.isEmpty() ? null : secret.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    AtomicInteger n = new AtomicInteger();
    threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
      Thread t = new Thread(r, "call-" + n.incrementAndGet());
      t.setDaemon(true);
      t.setContextClassLoader(ms.loader);
      return t;
    });
    timers = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "timers");
      t.setDaemon(true);
      return t;
    });
    timers.setRemoveOnCancelPolicy(true);
    timers.scheduleWithFixedDelay(this::sweep, 10, 10, TimeUnit.MILLISECONDS);
  }

  /** Listens on `unix:/path`, `tcp:host:port` or `tls:host:port` (port 0: any); returns where, as the platform reads it. */
  String listen(String spec) throws IOException {
    String where;
    int backlog = config.backlog;
    if (spec.startsWith("unix:")) {
      socketFile = Path.of(spec.substring(5));
      Files.deleteIfExists(socketFile);
      listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
      listener.bind(UnixDomainSocketAddress.of(socketFile), backlog);
      Files.setPosixFilePermissions(socketFile, PosixFilePermissions.fromString("rw-------"));
      where = spec;
    } else if (spec.startsWith("tls:")) {
      String hp = spec.substring(4);
      int colon = hp.lastIndexOf(':');
      String host = hp.substring(0, colon).replaceAll("^\\[|\\]$", "");
      tlsListener = Tls.listen(host, Integer.parseInt(hp.substring(colon + 1)), backlog);
      where = "tls:" + host + ":" + tlsListener.getLocalPort();
      Thread accept = new Thread(this::acceptTlsLoop, "accept");
      accept.setDaemon(true);
      accept.start();
    } else {
      String hp = spec.startsWith("tcp:") ? spec.substring(4) : spec;
      int colon = hp.lastIndexOf(':');
      String host = hp.substring(0, colon).replaceAll("^\\[|\\]$", "");
      listener = ServerSocketChannel.open();
      listener.bind(new InetSocketAddress(host, Integer.parseInt(hp.substring(colon + 1))), backlog);
      where = host + ":" + ((InetSocketAddress) listener.getLocalAddress()).getPort();
    }
    if (listener != null) {
      Thread accept = new Thread(this::acceptLoop, "accept");
      accept.setDaemon(true);
      accept.start();
    }
    // readTimeout: an idle connection is closed; the gateway's pings keep a live one busy.
    if (config.readTimeout > 0) {
      long every = Math.max(100, Math.min(1000, config.readTimeout / 4));
      timers.scheduleWithFixedDelay(this::closeIdle, every, every, TimeUnit.MILLISECONDS);
    }
    return where;
  }

  private void acceptLoop() {
    while (true) {
      SocketChannel ch;
      try {
        ch = listener.accept();
      } catch (IOException e) {
        return; // closed: stopping
      }
      String peer;
      try {
        peer = ch.getRemoteAddress() instanceof InetSocketAddress
            ? ((InetSocketAddress) ch.getRemoteAddress()).getAddress().getHostAddress() : "a local socket";
      } catch (IOException e) {
        peer = "a peer";
      }
      start(new Connection(Wire.of(ch), peer, this));
    }
  }

  /** tls:HOST:PORT: each connection's handshake runs on its own thread (Wire.open), not here. */
  private void acceptTlsLoop() {
    while (true) {
      SSLSocket s;
      try {
        s = (SSLSocket) tlsListener.accept();
      } catch (IOException e) {
        return; // closed: stopping
      }
      try {
        start(new Connection(Wire.of(s), s.getInetAddress().getHostAddress(), this));
      } catch (IOException e) {
        try {
          s.close();
        } catch (IOException ignored) {
          // It failed as it was set up: nothing to close cleanly.
        }
      }
    }
  }

  private void start(Connection c) {
    connections.add(c);
    Thread t = new Thread(c, "connection");
    t.setDaemon(true);
    t.start();
  }

  /** On the connection's thread, once its wire is open: with a secret, the challenge a gateway must answer. */
  void greet(Connection c) {
    if (secret == null) return;
    c.challenge = nonce();
    c.send(Gateway.Frame.newBuilder().setChallenge(Gateway.Challenge.newBuilder()
        .setNonce(ByteString.copyFrom(c.challenge))).build());
    timers.schedule(() -> {
      if (c.challenge != null && !c.closed) refuse(c, "no authenticated Hello within 5 s");
    }, 5, TimeUnit.SECONDS);
  }

  private void sweep() {
    long now = System.nanoTime();
    for (Call c : executing)
      // On a call thread: answering may make it the connection's writer, and a slow socket must not hold
      // up this thread's other deadlines and timers.
      if (now - c.deadlineAt >= 0 && executing.remove(c)) threads.execute(c::timedOut);
  }

  private void closeIdle() {
    long now = System.nanoTime();
    for (Connection c : connections)
      if (c.calls.isEmpty() && now - c.lastRead > config.readTimeout * 1_000_000L) c.close();
  }

  private byte[] nonce() {
    byte[] b = new byte[32];
    random.nextBytes(b);
    return b;
  }

  /** src/common/protocol/handshake.ts: HMAC-SHA256 over the role and both nonces. */
  private byte[] proof(String role, byte[] a, byte[] b) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(role.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      mac.update(a);
      mac.update(b);
      return mac.doFinal();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void refuse(Connection c, String why) {
    System.err.println("refused a connection from " + c.peer + ": " + why);
    c.refused = true;
    c.close();
  }

  Gateway.Catalog.Builder catalog() {
    Gateway.Catalog.Builder b = Gateway.Catalog.newBuilder().setProtocolVersion(PROTOCOL_VERSION)
        .setMicroservice(config.name).setVersion(config.version).setAvailable(available())
        .setApplicationType(config.type);
    for (Microservice.Service s : ms.services.values()) {
      if (!s.remotelyEnabled) continue;
      Gateway.Service.Builder sb = Gateway.Service.newBuilder().setName(s.name).setRemotelyEnabled(true);
      for (java.lang.reflect.Method m : s.methods.values()) {
        Gateway.Method.Builder mb = Gateway.Method.newBuilder().setName(m.getName())
            .setParameterCount(m.getParameterCount()).setReturnType(m.getGenericReturnType().getTypeName())
            .setReturnsVoid(Microservice.returnsVoid(m)).setNeedsPrivilege(Microservice.needsPrivilege(m));
        for (java.lang.reflect.Type t : m.getGenericParameterTypes()) mb.addParameterTypes(t.getTypeName());
        sb.addMethods(mb);
      }
      b.addServices(sb);
    }
    return b;
  }

  private boolean available() {
    return Availability.get() && !draining;
  }

  void onFrame(Connection c, Gateway.Frame f) {
    if (c.refused) return;
    if (c.challenge != null) {
      // Before it proves the secret, a connection may say Hello and nothing else.
      if (!f.hasHello()) {
        refuse(c, "'" + f.getBodyCase().name().toLowerCase() + "' before authenticating");
        return;
      }
      byte[] server = c.challenge;
      byte[] client = f.getHello().getNonce().toByteArray();
      if (!MessageDigest.isEqual(proof("gateway", server, client), f.getHello().getProof().toByteArray())) {
        refuse(c, "the Hello does not prove the shared secret");
        return;
      }
      c.challenge = null;
      c.send(Gateway.Frame.newBuilder().setCatalog(catalog().setProof(ByteString.copyFrom(proof("microservice", client, server)))).build());
      checkVersion(c, f.getHello());
      return;
    }
    switch (f.getBodyCase()) {
      case INVOKE:
        onInvoke(c, f.getInvoke());
        break;
      case CANCEL: {
        Call call = c.calls.get(f.getCancel().getId());
        if (call != null) call.abandon();
        break;
      }
      case PING:
        c.send(Gateway.Frame.newBuilder().setPong(Gateway.Pong.newBuilder().setId(f.getPing().getId())
            .setAvailable(available())).build());
        break;
      case HELLO:
        c.send(Gateway.Frame.newBuilder().setCatalog(catalog()).build());
        checkVersion(c, f.getHello());
        break;
      default:
        System.err.println("unexpected frame '" + f.getBodyCase() + "' from the gateway at " + c.peer);
        c.close();
    }
  }

  private void checkVersion(Connection c, Gateway.Hello hello) {
    if (hello.getProtocolVersion() != PROTOCOL_VERSION)
      refuse(c, "the gateway speaks internal protocol version " + hello.getProtocolVersion() + ", this microservice "
          + PROTOCOL_VERSION + "; run one release on both sides");
  }

  private void onInvoke(Connection c, Gateway.Invoke inv) {
    Call call = new Call(c, inv);
    c.calls.put(inv.getId(), call);
    int overloaded = -1;
    synchronized (slots) {
      if (running < config.threadPoolSize) running++;
      else if (waiting.size() < config.queueLimit) {
        waiting.add(call);
        return;
      } else overloaded = waiting.size();
    }
    if (overloaded >= 0) {
      call.reply(Invoker.fail("OVERLOADED", "all " + config.threadPoolSize + " execution slots are busy and "
          + overloaded + " calls wait"));
      return;
    }
    threads.execute(() -> runFrom(call));
  }

  /**
   * Runs `call`, then the calls waiting for a slot, on this thread: a call that ends hands its slot to the
   * next without waking another thread.
   */
  private void runFrom(Call call) {
    for (Call next = call; next != null; next = nextWaiting(next)) next.execute();
  }

  /** The next waiting call for the slot `done` held; null when none waits (the slot is free again). */
  private Call nextWaiting(Call done) {
    synchronized (slots) {
      // A left call's slot was handed on when it was left: its thread only ends.
      if (done.left) {
        left--;
        return null;
      }
      Call next = waiting.poll();
      if (next == null) running--;
      return next;
    }
  }

  /**
   * A method interrupted (executing timeout, cancel) still runs a second later: its thread is left to it,
   * and its slot goes to the next waiting call on a new thread, so that threadPoolSize calls can still run
   * beside it (docs/java.md, Hung methods).
   */
  private void leave(Call call) {
    Call next;
    int left;
    synchronized (slots) {
      // Checked again here: a method that returned since the timer looked has ended its slot itself.
      if (call.left || !call.running()) return;
      call.left = true;
      left = ++this.left;
      next = waiting.poll();
      if (next == null) running--;
    }
    System.err.println(call.invoke.getService() + "." + call.invoke.getMethod() + " still runs a second after its interrupt"
        + " (request " + call.invoke.getContext().getRequestId() + "): its thread is left to it, its slot to the next call; "
        + left + " left so far");
    if (next != null) {
      Call first = next;
      threads.execute(() -> runFrom(first));
    }
  }

  void onClosed(Connection c) {
    connections.remove(c);
    for (Call call : c.calls.values()) call.abandon();
  }

  /**
   * Stops. With drainMs, gracefully: no new connections, a GoAway on every connection (the gateway sends no
   * more calls there and closes it once its calls are answered); connections still open after drainMs are
   * closed. Without, at once.
   */
  void close(long drainMs) throws InterruptedException {
    draining = true;
    try {
      if (listener != null) listener.close();
      if (tlsListener != null) tlsListener.close();
      if (socketFile != null) Files.deleteIfExists(socketFile);
    } catch (IOException ignored) {
      // Already closed.
    }
    if (drainMs > 0 && !connections.isEmpty()) {
      for (Connection c : connections)
        if (c.challenge == null)
          c.send(Gateway.Frame.newBuilder().setGoAway(Gateway.GoAway.newBuilder().setReason("the microservice is stopping")).build());
        else c.close();
      long until = System.nanoTime() + drainMs * 1_000_000L;
      while (!connections.isEmpty() && System.nanoTime() < until) Thread.sleep(20);
    }
    for (Connection c : connections) c.close();
    threads.shutdownNow();
    timers.shutdownNow();
  }
}
