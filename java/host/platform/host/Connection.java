package platform.host;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import gateway.Gateway;
import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One gateway connection: a thread reads its frames (varint length + Frame, as protobufjs'
 * encodeDelimited writes them); answers are written by the threads that produce them, one frame at a time.
 * Reads and writes go to the channel directly: the streams of java.nio.channels.Channels lock reads
 * against writes on a blocking channel, and a reader waiting for the next call would hold every answer back.
 */
final class Connection implements Runnable {
  final SocketChannel channel;
  final String peer;
  private final Server server;
  private final Object writeLock = new Object();
  final ConcurrentHashMap<Integer, Server.Call> calls = new ConcurrentHashMap<>();
  /** The challenge's nonce while the connection has not proved it knows the secret. */
  volatile byte[] challenge;
  volatile boolean refused;
  volatile boolean closed;
  volatile long lastRead = System.nanoTime();

  Connection(SocketChannel channel, String peer, Server server) {
    this.channel = channel;
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
        int n = channel.read(ByteBuffer.wrap(b, off, len));
        if (n > 0) lastRead = System.nanoTime();
        return n;
      }
    }, 64 * 1024);
    try {
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

  void send(Gateway.Frame frame) {
    int size = frame.getSerializedSize();
    byte[] out = new byte[CodedOutputStream.computeUInt32SizeNoTag(size) + size];
    CodedOutputStream coded = CodedOutputStream.newInstance(out);
    try {
      coded.writeUInt32NoTag(size);
      frame.writeTo(coded);
      ByteBuffer b = ByteBuffer.wrap(out);
      synchronized (writeLock) {
        while (b.hasRemaining()) channel.write(b);
      }
    } catch (IOException e) {
      close();
    }
  }

  /** Ends the connection; its calls are abandoned (nobody is left to answer). */
  void close() {
    if (closed) return;
    closed = true;
    try {
      channel.close();
    } catch (IOException ignored) {
      // Closing a socket that failed: nothing more to do.
    }
    server.onClosed(this);
  }
}
