package dev.tollgate.gateway;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 spoken byte for byte over a socket, for requests that {@link java.net.http.HttpClient}
 * will not send as written: unnormalised or oddly encoded paths, missing or repeated {@code Host}
 * headers, requests sent slowly or not at all.
 */
final class RawHttp implements AutoCloseable {

    /** A response as read off the wire; header names lower-cased, the last value of each kept. */
    record Response(int status, Map<String, String> headers, String body) {

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    private RawHttp(int port, int readTimeoutMillis) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(readTimeoutMillis);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A connection to 127.0.0.1:{@code port} whose reads give up after {@code readTimeoutMillis}. */
    static RawHttp connect(int port, int readTimeoutMillis) {
        return new RawHttp(port, readTimeoutMillis);
    }

    /** One request on a new connection, {@code Connection: close}; {@code apiKey} may be null. */
    static Response send(int port, String method, String target, String apiKey) {
        StringBuilder head = new StringBuilder()
                .append(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1:").append(port).append("\r\n");
        if (apiKey != null) {
            head.append("X-Api-Key: ").append(apiKey).append("\r\n");
        }
        head.append("Content-Length: 0\r\nConnection: close\r\n\r\n");
        try (RawHttp http = connect(port, 10_000)) {
            http.write(head.toString());
            return http.readResponse();
        }
    }

    void write(String text) {
        try {
            out.write(text.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Whether the server closed the connection: true once a read sees the end of the stream (or a
     * reset), false if nothing came within the read timeout. Any bytes before the end are skipped.
     */
    boolean closedByServer() {
        try {
            while (in.read() != -1) {
                // skip whatever the server said before closing
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true; // reset by the server
        }
    }

    /** Reads one response: status line, headers, and a body of Content-Length bytes. */
    Response readResponse() {
        try {
            String statusLine = readLine();
            int status = Integer.parseInt(statusLine.split(" ", 3)[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            for (String line = readLine(); !line.isEmpty(); line = readLine()) {
                int colon = line.indexOf(':');
                headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
            int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
            byte[] body = in.readNBytes(length);
            return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\n') {
            if (b == -1) {
                throw new IOException("connection closed after: " + line.toString(StandardCharsets.ISO_8859_1));
            }
            if (b != '\r') {
                line.write(b);
            }
        }
        return line.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
