package dev.tollgate.bench.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.renderer.category.CategoryItemRenderer;
import org.jfree.data.category.CategoryDataset;
import org.jfree.data.category.DefaultCategoryDataset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BarChartTest {

    @Test
    void everyValueIsPlottedUnderItsSeriesAndGroupAndMissingOnesAreLeftOut() {
        DefaultCategoryDataset data = new BarChart("title", "ms", List.of("1,000 req/s", "2,000 req/s"))
                .series("a", 0.5, -0.2)
                .series("b", Double.NaN, 3)
                .dataset();

        assertThat(data.getRowKeys()).containsExactly("a", "b");
        assertThat(data.getColumnKeys()).containsExactly("1,000 req/s", "2,000 req/s");
        assertThat(data.getValue("a", "1,000 req/s")).isEqualTo(0.5);
        assertThat(data.getValue("a", "2,000 req/s")).isEqualTo(-0.2);
        assertThat(data.getValue("b", "1,000 req/s")).isNull();
        assertThat(data.getValue("b", "2,000 req/s")).isEqualTo(3.0);
    }

    @Test
    void aLogScaleLeavesOutWhatItCannotDraw() {
        DefaultCategoryDataset data = new BarChart("title", "ms", List.of("a", "b"))
                .series("x", 0.2, 3500)
                .series("y", 0, -1)
                .logScale()
                .dataset();

        assertThat(data.getValue("x", "a")).isEqualTo(0.2);
        assertThat(data.getValue("x", "b")).isEqualTo(3500.0);
        assertThat(data.getValue("y", "a")).isNull();
        assertThat(data.getValue("y", "b")).isNull();
    }

    @Test
    void theLabelAboveEachBarIsItsValueInTheGivenPattern() {
        CategoryPlot plot = new BarChart("title", "req/s", List.of("no limiter", "Tollgate"))
                .series("completed requests/s", 9315.4, 6491)
                .valuePattern("#,##0")
                .chart().getCategoryPlot();
        CategoryItemRenderer renderer = plot.getRenderer();
        CategoryDataset data = plot.getDataset();

        assertThat(renderer.getItemLabelGenerator(0, 0).generateLabel(data, 0, 0)).isEqualTo("9,315");
        assertThat(renderer.getItemLabelGenerator(0, 1).generateLabel(data, 0, 1)).isEqualTo("6,491");

        CategoryPlot negative = new BarChart("t", "ms", List.of("g")).series("s", -0.2).chart().getCategoryPlot();
        assertThat(negative.getRenderer().getItemLabelGenerator(0, 0).generateLabel(negative.getDataset(), 0, 0))
                .isEqualTo("-0.20");
    }

    @Test
    void barsInThePngAreAsTallAsTheirValues(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("charts/chart.png");
        new BarChart("title", "ms", List.of("low", "high"))
                .series("a", 1, 3)
                .writePng(file);

        BufferedImage image = ImageIO.read(file.toFile());
        assertThat(image.getWidth()).isEqualTo(BarChart.WIDTH);
        assertThat(image.getHeight()).isEqualTo(BarChart.HEIGHT);
        // The tallest run of the series' colour in each half of the image is that group's bar.
        int low = tallestBar(image, 0, image.getWidth() / 2);
        int high = tallestBar(image, image.getWidth() / 2, image.getWidth());
        assertThat(low).isGreaterThan(20);
        assertThat((double) high / low).isCloseTo(3.0, within(0.1));
    }

    @Test
    void aSeriesMustHaveOneValuePerGroup() {
        assertThatThrownBy(() -> new BarChart("t", "ms", List.of("a", "b")).series("s", 1))
                .hasMessageContaining("series s has 1 values for 2 groups");
    }

    /** Longest vertical run of the first series' colour in columns [fromX, toX). */
    private static int tallestBar(BufferedImage image, int fromX, int toX) {
        int colour = BarChart.PALETTE[0].getRGB();
        int tallest = 0;
        for (int x = fromX; x < toX; x++) {
            int run = 0;
            for (int y = 0; y < image.getHeight(); y++) {
                run = image.getRGB(x, y) == colour ? run + 1 : 0;
                tallest = Math.max(tallest, run);
            }
        }
        return tallest;
    }
}
