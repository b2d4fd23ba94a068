/**
 * Who a request comes from when it carries no credentials: IP address literals, CIDR blocks, the
 * forwarding headers trusted proxies write ({@code X-Forwarded-For}, RFC 7239's {@code Forwarded}) and
 * the client address they lead to, grouped by prefix. Plain Java, no name resolution: every address is
 * parsed from its text, never looked up.
 */
package dev.tollgate.core.address;
