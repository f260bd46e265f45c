package platform.host;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * `tls:HOST:PORT`: the internal protocol over TLS, as the Node host serves it (docs/security.md, "Between
 * hosts"): the certificate and key of MICROSERVICE_TLS_CERT_FILE and MICROSERVICE_TLS_KEY_FILE (PEM; the
 * key PKCS#8, as openssl writes it), and with MICROSERVICE_TLS_CA_FILE a gateway's certificate required
 * and verified against those CAs. TLS 1.2 and 1.3.
 */
final class Tls {
  private Tls() {}

  static SSLServerSocket listen(String host, int port, int backlog) throws IOException {
    String cert = required("MICROSERVICE_TLS_CERT_FILE");
    String key = required("MICROSERVICE_TLS_KEY_FILE");
    String ca = System.getenv("MICROSERVICE_TLS_CA_FILE");
    try {
      KeyStore own = KeyStore.getInstance("PKCS12");
      own.load(null, null);
      Collection<? extends Certificate> chain = certificates(cert);
      own.setKeyEntry("key", privateKey(key), new char[0], chain.toArray(new Certificate[0]));
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(own, new char[0]);
      TrustManagerFactory tmf = null;
      if (ca != null && !ca.isEmpty()) {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        int k = 0;
        for (Certificate c : certificates(ca)) trusted.setCertificateEntry("ca" + k++, c);
        tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
      }
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(), null);
      SSLServerSocket s = (SSLServerSocket) context.getServerSocketFactory().createServerSocket();
      s.setEnabledProtocols(new String[] {"TLSv1.3", "TLSv1.2"});
      s.setNeedClientAuth(tmf != null);
      s.bind(new java.net.InetSocketAddress(host, port), backlog);
      return s;
    } catch (GeneralSecurityException e) {
      throw new IOException("TLS: " + e.getMessage(), e);
    }
  }

  private static String required(String name) throws IOException {
    String v = System.getenv(name);
    if (v == null || v.isEmpty()) throw new IOException("tls: listening needs " + name + " (a PEM file)");
    return v;
  }

  private static Collection<? extends Certificate> certificates(String file) throws IOException, GeneralSecurityException {
    Collection<? extends Certificate> all =
        CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(Files.readAllBytes(Path.of(file))));
    if (all.isEmpty()) throw new IOException(file + " holds no PEM certificate");
    return all;
  }

  private static PrivateKey privateKey(String file) throws IOException, GeneralSecurityException {
    String pem = Files.readString(Path.of(file), StandardCharsets.US_ASCII);
    String begin = "-----BEGIN PRIVATE KEY-----";
    int at = pem.indexOf(begin);
    int end = pem.indexOf("-----END PRIVATE KEY-----");
    if (at < 0 || end < 0)
      throw new IOException(file + " holds no PKCS#8 key (BEGIN PRIVATE KEY); convert it: openssl pkcs8 -topk8 -nocrypt -in "
          + file);
    byte[] der = Base64.getMimeDecoder().decode(pem.substring(at + begin.length(), end));
    GeneralSecurityException last = null;
    for (String algorithm : new String[] {"EC", "RSA", "Ed25519", "RSASSA-PSS"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw new IOException(file + ": not an EC, RSA or Ed25519 key", last);
  }
}
