package platform.host;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import gateway.Gateway;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One gateway connection: a thread reads its frames (varint length + Frame, as protobufjs'
 * encodeDelimited writes them); answers are written by the threads that produce them, batched (send).
 * Reads and writes go to the wire directly: the streams of java.nio.channels.Channels lock reads
 * against writes on a blocking channel, and a reader waiting for the next call would hold every answer back.
 */
final class Connection implements Runnable {
  private final Wire wire;
  final String peer;
  private final Server server;
  private final ConcurrentLinkedQueue<byte[]> outbox = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean writing = new AtomicBoolean();
  final ConcurrentHashMap<Integer, Server.Call> calls = new ConcurrentHashMap<>();
  /** The challenge's nonce while the connection has not proved it knows the secret. */
  volatile byte[] challenge;
  volatile boolean refused;
  volatile boolean closed;
  volatile long lastRead = System.nanoTime();

  Connection(Wire wire, String peer, Server server) {
    this.wire = wire;
    this.peer = peer;
    this.server = server;
  }

  @Override
  public void run() {
    InputStream in = new BufferedInputStream(new InputStream() {
      public int read() {
        throw new UnsupportedOperationException();
      }

      public int read(byte[] b, int off, int len) throws IOException {
        int n = wire.read(b, off, len);
        if (n > 0) lastRead = System.nanoTime();
        return n;
      }
    }, 64 * 1024);
    try {
      wire.open();
      server.greet(this);
      while (!closed) {
        int first = in.read();
        if (first < 0) break;
        int size = CodedInputStream.readRawVarint32(first, in);
        if (size < 0 || size > server.config.maxFrameBytes)
          throw new IOException("a frame of " + size + " bytes is over maxFrameBytes " + server.config.maxFrameBytes);
        byte[] bytes = in.readNBytes(size);
        if (bytes.length < size) throw new EOFException("the connection ended inside a frame");
        server.onFrame(this, Gateway.Frame.parseFrom(bytes));
      }
    } catch (IOException e) {
      if (!closed && !refused) System.err.println("connection from " + peer + " failed: " + e.getMessage());
    } finally {
      close();
    }
  }

  /**
   * Queues a frame and writes what is queued, unless another thread is writing: that one writes it too,
   * with the frames queued beside it, in one gathering write. Under load most answers then share a
   * write call with others, and a thread that answers never waits behind a slow socket unless it is the
   * writer (docs/java.md, Cost per call).
   */
  void send(Gateway.Frame frame) {
    int size = frame.getSerializedSize();
    byte[] out = new byte[CodedOutputStream.computeUInt32SizeNoTag(size) + size];
    CodedOutputStream coded = CodedOutputStream.newInstance(out);
    try {
      coded.writeUInt32NoTag(size);
      frame.writeTo(coded);
    } catch (IOException e) {
      throw new IllegalStateException("a frame did not fit its own size", e);
    }
    outbox.add(out);
    // Checked again after each batch: a frame queued while the writer was finishing is not left behind.
    while (!outbox.isEmpty() && writing.compareAndSet(false, true)) {
      try {
        ByteBuffer[] batch = new ByteBuffer[64];
        int n = 0;
        byte[] next;
        while (n < batch.length && (next = outbox.poll()) != null) batch[n++] = ByteBuffer.wrap(next);
        wire.write(batch, n);
      } catch (IOException e) {
        outbox.clear();
        close();
        return;
      } finally {
        writing.set(false);
      }
    }
  }

  /** Ends the connection; its calls are abandoned (nobody is left to answer). */
  void close() {
    if (closed) return;
    closed = true;
    try {
      wire.close();
    } catch (IOException ignored) {
      // Closing a socket that failed: nothing more to do.
    }
    server.onClosed(this);
  }
}
