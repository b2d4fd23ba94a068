package dev.tollgate.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BarChartTest {

    @Test
    void writesAPngWithNegativeAndMissingValues(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("charts/chart.png");
        new BarChart("title", "ms", List.of("1,000 req/s", "2,000 req/s"))
                .series("a", 0.5, -0.2)
                .series("b", Double.NaN, 3)
                .writePng(file);

        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image.getWidth()).isEqualTo(1000);
        assertThat(image.getHeight()).isEqualTo(560);
    }

    @Test
    void aLogScaleDrawsValuesSpanningDecades(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("log.png");
        new BarChart("title", "ms", List.of("a", "b"))
                .series("x", 0.2, 3500)
                .series("y", 0, Double.NaN) // not drawable on a log axis: left out, not an error
                .logScale()
                .writePng(file);

        assertThat(ImageIO.read(file.toFile()).getWidth()).isEqualTo(1000);
    }

    @Test
    void ticksFallOnRoundNumbers() {
        assertThat(BarChart.niceStep(0.13)).isEqualTo(0.2);
        assertThat(BarChart.niceStep(730)).isEqualTo(1000);
        assertThat(BarChart.niceStep(2.2)).isEqualTo(2.5);
    }
}
