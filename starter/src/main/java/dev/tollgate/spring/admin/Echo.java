package dev.tollgate.spring.admin;

import java.math.BigDecimal;

/**
 * Input quoted back in error messages, never longer than {@value #MAX} characters: a request can make
 * the answer about its own mistakes only so large.
 */
final class Echo {

    static final int MAX = 40;

    private Echo() {
    }

    /** {@code text}, cut to {@value #MAX} characters (the cut marked with {@code ...}). */
    static String of(String text) {
        return text.length() <= MAX ? text : text.substring(0, MAX - 3) + "...";
    }

    /**
     * {@code number} in plain notation when that is short, else in scientific notation (whose length
     * follows the digits, not the exponent: {@code 1E-500000000} is twelve characters, its plain form
     * half a billion), cut to {@value #MAX} characters either way.
     */
    static String of(BigDecimal number) {
        boolean plainIsShort = number.precision() <= MAX / 2 && Math.abs((long) number.scale()) <= MAX / 2;
        return of(plainIsShort ? number.toPlainString() : number.toString());
    }
}
