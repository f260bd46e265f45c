package platform.host;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.reflect.Method;
import java.util.concurrent.CountDownLatch;
import sun.misc.Signal;

/**
 * The process of one Java microservice, the counterpart of src/microservice/host/host.ts:
 *   java -cp HOST platform.host.Host DIR              serves (MICROSERVICE_LISTEN, MICROSERVICE_SECRET, ...)
 *   java -cp HOST platform.host.Host --check DIR      loads the jar and its context, prints the services, exits
 *   java -cp HOST platform.host.Host --describe DIR [SEQUENCE API_ID]   prints the OpenAPI description
 * The platform learns where it listens from the line it prints, and stops it with a `stop` line on stdin
 * (MICROSERVICE_MANAGED=1, signals then left to it); with MICROSERVICE_LIFELINE=stdin the end of stdin
 * stops it too, and so do signals.
 */
public final class Host {
  private Host() {}

  public static void main(String[] args) {
    try {
      if (args.length >= 2 && args[0].equals("--check")) {
        check(new Microservice(new File(args[1]).getAbsoluteFile()));
        System.exit(0);
      }
      if (args.length >= 2 && args[0].equals("--describe")) {
        Microservice ms = new Microservice(new File(args[1]).getAbsoluteFile());
        String sequence = args.length > 2 ? args[2] : "betaParamArrayJsonInOutSequence";
        String apiId = args.length > 3 ? args[3] : "ROA";
        System.out.println(new Description(ms, sequence, apiId).json());
        System.exit(0);
      }
      if (args.length != 1) throw new IllegalArgumentException("usage: Host DIR | --check DIR | --describe DIR [SEQUENCE API_ID]");
      serve(new File(args[0]).getAbsoluteFile());
    } catch (Throwable e) {
      System.err.println("microservice failed to start: " + reason(e));
      System.exit(78);
    }
  }

  /** The innermost cause that says what went wrong, on one line; Spring's outer messages repeat it. */
  static String reason(Throwable e) {
    String text = e.getMessage() == null ? e.getClass().getName() : e.getMessage();
    if (e instanceof ClassNotFoundException || e instanceof NoClassDefFoundError) text = "class not found: " + text;
    return text.replaceAll("\\s*\\n\\s*", " ");
  }

  private static void check(Microservice ms) throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode out = json.createObjectNode();
    out.put("name", ms.config.name);
    out.put("version", ms.config.version);
    ArrayNode services = out.putArray("services");
    for (Microservice.Service s : ms.services.values()) {
      ObjectNode sn = services.addObject();
      sn.put("name", s.name);
      sn.put("remotelyEnabled", s.remotelyEnabled);
      ArrayNode methods = sn.putArray("methods");
      for (Method m : s.methods.values()) methods.add(m.getName());
    }
    System.out.println(json.writeValueAsString(out));
    ms.close();
  }

  private static void serve(File dir) throws Exception {
    String listen = env("MICROSERVICE_LISTEN", "tcp:127.0.0.1:0");
    boolean managed = "1".equals(System.getenv("MICROSERVICE_MANAGED"));
    // Stdin is a pipe from the process that started this one: its end means that process is gone.
    boolean lifeline = managed || "stdin".equals(System.getenv("MICROSERVICE_LIFELINE"));
    long drain = Long.parseLong(env("MICROSERVICE_DRAIN_MS", managed ? "4000" : "20000"));
    // Before the listening line: whoever reads it may signal at once.
    CountDownLatch stop = new CountDownLatch(1);
    // HUP, managed: the platform's reload reaching its whole process group; unmanaged, it stops as TERM.
    for (String signal : new String[] {"TERM", "INT", "HUP"}) {
      Signal.handle(new Signal(signal), s -> {
        // Started by a platform: a signal to the whole process group reaches this process too, but the
        // gateway still has calls for it while it drains; the platform says when to stop.
        if (managed && signal.equals("HUP")) System.out.println("SIGHUP: the platform reads its config again; this instance goes on");
        else if (managed) System.out.println("SIG" + signal + ": left to the platform, which stops this instance once its gateway has drained");
        else stop.countDown();
      });
    }
    if (lifeline) {
      Thread stdin = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in))) {
          String line;
          while ((line = r.readLine()) != null) if (line.trim().equals("stop")) break;
        } catch (Exception ignored) {
          // A broken pipe is the platform gone: stop as on EOF.
        }
        stop.countDown();
      }, "platform");
      stdin.setDaemon(true);
      stdin.start();
    }
    Microservice ms = new Microservice(dir);
    Server server = new Server(ms, System.getenv("MICROSERVICE_SECRET"));
    String where = server.listen(listen);
    long heapMb = Runtime.getRuntime().maxMemory() / (1024 * 1024);
    System.out.println("microservice " + ms.config.name + " " + ms.config.version + " listening on " + where + " (pid "
        + ProcessHandle.current().pid() + ", heap limit " + heapMb + " MB)");
    System.out.flush();

    stop.await();
    if (drain > 0)
      System.out.println("microservice " + ms.config.name + " stopping: its gateways are told to send no more calls; draining for up to "
          + drain + " ms");
    server.close(drain);
    ms.close();
    System.exit(0);
  }

  private static String env(String name, String fallback) {
    String v = System.getenv(name);
    return v == null || v.isEmpty() ? fallback : v;
  }
}
