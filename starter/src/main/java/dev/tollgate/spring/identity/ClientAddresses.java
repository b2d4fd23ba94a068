package dev.tollgate.spring.identity;

import dev.tollgate.core.address.ClientAddressResolver;
import dev.tollgate.core.address.ForwardingHops;
import dev.tollgate.core.address.IpAddress;
import dev.tollgate.core.limits.PlanBook;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.List;
import org.springframework.http.server.reactive.AbstractServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.netty.http.server.ConnectionInformation;

/**
 * The client address of a request ({@link ClientAddressResolver}: the peer, or behind trusted
 * proxies the right-most untrusted hop of the one forwarding header they write), as the group it is
 * limited in. The header is read only when the peer is a trusted proxy, so with no trusted proxies
 * (the default) a forged header costs nothing but its bytes.
 *
 * <p>The peer is the connection's own, from Reactor Netty, not {@link ServerHttpRequest#getRemoteAddress()}:
 * with {@code server.forward-headers-strategy} {@code native} (Spring Boot's default on Kubernetes and
 * other cloud platforms) or {@code framework}, that is the left-most forwarded address, which any
 * client can write.
 */
public final class ClientAddresses {

    /** The group of a request whose peer is unknown (not expected from a real connection). */
    static final String UNKNOWN_GROUP = "unknown";

    private final ClientAddressResolver resolver;
    private final String header;
    private final boolean rfc7239;

    /**
     * @param header  the forwarding header trusted proxies write
     * @param rfc7239 whether that header is RFC 7239's {@code Forwarded} (else {@code X-Forwarded-For})
     */
    public ClientAddresses(ClientAddressResolver resolver, String header, boolean rfc7239) {
        this.resolver = resolver;
        this.header = header;
        this.rfc7239 = rfc7239;
    }

    /** The group of the request's client address, as {@code address/prefix}. */
    public String group(ServerHttpRequest request) {
        byte[] peer = peer(connectionPeer(request));
        if (peer == null) {
            return UNKNOWN_GROUP;
        }
        byte[] client = peer;
        if (resolver.trusted(peer)) {
            List<String> lines = request.getHeaders().get(header);
            if (lines != null) {
                client = resolver.client(peer, rfc7239 ? ForwardingHops.forwarded(lines) : ForwardingHops.xForwardedFor(lines));
            }
        }
        return resolver.group(client);
    }

    /**
     * The tenant id an anonymous caller from this request's address is limited as:
     * {@value PlanBook#ANONYMOUS_TENANT_PREFIX} and its group. The {@code :} and {@code /} occur in no
     * tenant id the directory accepts, so no real tenant shares its buckets.
     */
    public String anonymousTenant(ServerHttpRequest request) {
        return PlanBook.ANONYMOUS_TENANT_PREFIX + group(request);
    }

    /** The address the connection comes from, whatever forwarded-header handling has made of the request's. */
    static SocketAddress connectionPeer(ServerHttpRequest request) {
        ServerHttpRequest unwrapped = request;
        while (unwrapped instanceof ServerHttpRequestDecorator decorator) {
            unwrapped = decorator.getDelegate();
        }
        if (unwrapped instanceof AbstractServerHttpRequest server) {
            Object nativeRequest;
            try {
                nativeRequest = server.getNativeRequest();
            } catch (IllegalStateException noNativeRequest) {
                nativeRequest = null; // a test's mock request: its remote address is the peer
            }
            if (nativeRequest instanceof ConnectionInformation connection) {
                return connection.connectionRemoteAddress();
            }
        }
        return request.getRemoteAddress(); // not Reactor Netty
    }

    private static byte[] peer(SocketAddress remote) {
        if (!(remote instanceof InetSocketAddress socket)) {
            return null;
        }
        InetAddress address = socket.getAddress();
        return address == null ? null : IpAddress.normalized(address.getAddress());
    }
}
