package platform.host;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import javax.net.ssl.SSLSocket;

/**
 * The bytes of one gateway connection: a socket channel (unix or TCP), or a TLS socket. Reads come from
 * the connection's own thread, writes from whichever thread answers: both kinds take them at once
 * (a blocking channel, and JSSE's SSLSocket, which locks reads and writes apart).
 */
interface Wire {
  /** Up to len bytes into b; -1 at the end. */
  int read(byte[] b, int off, int len) throws IOException;

  /** Writes all of batch[0..n) (a gathering write where the kind has one). */
  void write(ByteBuffer[] batch, int n) throws IOException;

  /** Before the first frame: a TLS handshake, bounded in time; nothing for a plain socket. */
  default void open() throws IOException {}

  void close() throws IOException;

  static Wire of(SocketChannel channel) {
    return new Wire() {
      public int read(byte[] b, int off, int len) throws IOException {
        return channel.read(ByteBuffer.wrap(b, off, len));
      }

      public void write(ByteBuffer[] batch, int n) throws IOException {
        while (n > 0 && batch[n - 1].hasRemaining()) channel.write(batch, 0, n);
      }

      public void close() throws IOException {
        channel.close();
      }
    };
  }

  static Wire of(SSLSocket socket) throws IOException {
    return new Wire() {
      private InputStream in;
      private OutputStream out;

      public void open() throws IOException {
        // A peer that connects and never finishes its handshake must not hold the connection's thread.
        socket.setSoTimeout(5000);
        socket.startHandshake();
        socket.setSoTimeout(0);
        in = socket.getInputStream();
        out = socket.getOutputStream();
      }

      public int read(byte[] b, int off, int len) throws IOException {
        return in.read(b, off, len);
      }

      public void write(ByteBuffer[] batch, int n) throws IOException {
        // One record for the batch rather than one per frame: copy the frames into one array first.
        int size = 0;
        for (int k = 0; k < n; k++) size += batch[k].remaining();
        byte[] all = new byte[size];
        int at = 0;
        for (int k = 0; k < n; k++) {
          int r = batch[k].remaining();
          batch[k].get(all, at, r);
          at += r;
        }
        out.write(all);
        out.flush();
      }

      public void close() throws IOException {
        socket.close();
      }
    };
  }
}
